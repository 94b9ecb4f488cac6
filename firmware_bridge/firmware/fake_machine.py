"""A small stand-in for MicroPython's ``machine`` module, so the firmware (``main.py``)
runs unchanged under CPython. Only what the firmware uses: ``Pin`` (with a hook for what
an input reads), ``bitstream`` (records what a WS2812 chain was sent) and ``WDT``.

An input pin reads ``pin.source()`` when a source is attached (the simulator's virtual
sensor matrix), else its pull level; an output pin remembers its value.
"""


class Pin:
    IN = 0
    OUT = 1
    OPEN_DRAIN = 2
    PULL_UP = 1
    PULL_DOWN = 2

    def __init__(self, id, mode=-1, pull=-1, *, value=None):
        self.id = id
        self.mode = mode
        self.pull = pull
        self._value = 1 if value is None and pull == Pin.PULL_UP else (value or 0)
        self.source = None  # callable returning 0/1 for an input wired to something
        self.sent = []  # bitstream buffers written to this pin, newest last

    def init(self, mode=-1, pull=-1, *, value=None):
        self.mode, self.pull = mode, pull
        if value is not None:
            self._value = value

    def value(self, level=None):
        if level is None:
            if self.mode == Pin.IN and self.source is not None:
                return self.source()
            return self._value
        self._value = 1 if level else 0
        return None

    def on(self):
        self._value = 1

    def off(self):
        self._value = 0

    def __call__(self, level=None):
        return self.value(level)


def bitstream(pin, encoding, timing, buf):
    if encoding != 0 or len(timing) != 4:
        raise ValueError("bitstream: encoding 0 takes four timings (high0, low0, high1, low1)")
    pin.sent.append(bytes(buf))
    del pin.sent[:-8]  # keep the last few only: a blinking LED writes forever


class WDT:
    def __init__(self, id=0, timeout=5000):
        self.timeout = timeout
        self.fed = 0

    def feed(self):
        self.fed += 1


def unique_id():
    return b"\x00tableref"
