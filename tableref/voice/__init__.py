"""The referee's voice: decisions spoken through the Pi's audio output (docs/voice.md).

``open_speaker(config)`` makes a :class:`Speaker` for a ``[voice]`` table (nothing started);
subscribe its ``on_decision`` to the referee, ``start()`` it, ``close()`` it.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from .audio import EspeakEngine, PiperEngine, Runner, SubprocessRunner
from .sentences import Narrator, Utterance
from .settings import VoiceConfig
from .speaker import Said, Speaker, VoiceStatus

__all__ = ["Narrator", "Said", "Speaker", "Utterance", "VoiceConfig", "VoiceStatus", "open_speaker"]


def open_speaker(config: VoiceConfig, *, runner: Runner | None = None,
                 clock: Callable[[], float] = time.monotonic) -> Speaker | None:
    """The speaker the config describes, or None when the level is "off"."""
    if not config.enabled:
        return None
    runner = runner or SubprocessRunner()
    if config.engine == "piper" and config.piper_model is not None:
        engine = PiperEngine(runner, model=config.piper_model)
    else:
        engine = EspeakEngine(runner, voice=config.voice)
    return Speaker(runner, engine, language=config.language, level=config.level, volume=config.volume,
                   reminder_interval=config.reminder_interval, chimes=config.chimes, output=config.output,
                   clock=clock)
