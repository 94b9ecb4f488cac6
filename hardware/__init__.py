"""hardware — the Pi's own GPIO, through gpiozero: the panel (buttons, LEDs, buzzer;
``hardware.panel``) and a directly wired reed/Hall matrix source (``hardware.matrix``).
Every device class takes ``pin_factory=``; ``hardware.pins.default_pin_factory()`` finds the
Pi's, or says why there is none. Wiring: docs/wiring.md."""
