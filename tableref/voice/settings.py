"""The ``[voice]`` table of the config file, as a typed value (read by ``tableref.config``).

    [voice]
    level = "quiet"            # off | quiet | normal
    language = "fr"            # a catalog in tableref/i18n: en, fr
    engine = "espeak-ng"       # espeak-ng | piper
    voice = "fr-fr"            # espeak-ng's voice name; default: the language's
    piper_model = "/usr/local/share/piper/fr_FR-siwis-medium.onnx"   # engine = "piper" only
    volume = 80                # 0-100
    reminder_interval = 20     # seconds between drift reminders
    output = "auto"            # auto | aplay | pw-play
    chimes = true
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .audio import ENGINES, OUTPUTS
from .sentences import LEVELS


@dataclass(frozen=True)
class VoiceConfig:
    level: str = "quiet"
    language: str = "en"
    engine: str = "espeak-ng"
    voice: str | None = None  # None: the language's espeak-ng voice
    piper_model: Path | None = None
    volume: int = 80
    reminder_interval: float = 20.0
    output: str = "auto"
    chimes: bool = True

    @property
    def enabled(self) -> bool:
        return self.level != "off"


def read_voice(reader: Any, t: Any) -> VoiceConfig:
    """Read a ``[voice]`` table with ``tableref.config``'s reader helpers (every error names
    the key); ``t`` None: the defaults."""
    from tableref.i18n import languages

    if t is None:
        return VoiceConfig()
    level = reader.choice(t, "level", LEVELS, "quiet")
    language = reader.choice(t, "language", languages(), "en")
    engine = reader.choice(t, "engine", ENGINES, "espeak-ng")
    voice = t.get("voice", str, expect="an espeak-ng voice name such as \"fr-fr\"")
    if voice is not None and (not voice.strip() or any(ch.isspace() for ch in voice)):
        raise reader.error(t.path("voice"), f"expected an espeak-ng voice name such as \"fr-fr\", got {voice!r}")
    model = reader.path(t, "piper_model")
    if engine == "piper" and model is None:
        raise reader.error(t.path("piper_model"), 'missing: engine = "piper" needs the path of an installed '
                                                  "Piper voice file (*.onnx); it is never downloaded")
    volume = reader.whole(t, "volume", 80, least=0)
    if volume > 100:
        raise reader.error(t.path("volume"), f"expected an integer 0-100, got {volume}")
    interval = reader.number(t, "reminder_interval", 20.0, positive=True)
    output = reader.choice(t, "output", OUTPUTS, "auto")
    chimes = t.get("chimes", bool, True)
    t.done()
    return VoiceConfig(level, language, engine, voice, model, volume, interval, output, chimes)
