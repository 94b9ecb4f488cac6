"""Checking the files a configuration names (``Config.check_files``, ``tableref config check``),
as the service will read them on start, without opening any device: one ConfigError naming the
key of the first that is missing or wrong. Apart from reading the TOML (``tableref/config.py``)."""

from __future__ import annotations

from typing import Any

from rules import get_game

from .config import (
    CameraConfig, Config, ConfigError, GpioConfig, ReplayConfig, SerialConfig, SimulatedConfig, check_gpio_roles,
)
from .hub.settings import check_files as check_hub_files


def check_video(src: CameraConfig, fail: Any) -> None:
    """A video file as the camera must be one OpenCV plays; a device node (``/dev/video0``) or a
    stream may be missing now: serve waits for it (config check says so)."""
    device = src.device
    if not isinstance(device, str) or "://" in device or device.startswith("/dev/") or src.backend == "picamera":
        return
    try:
        from vision.camera.capture import CaptureError, OpenCVCapture
    except ImportError:  # a build without the camera: serve says so on its own
        return
    capture = OpenCVCapture(device)
    try:
        capture.start()  # a file, not a device: reading its header says whether it plays
    except CaptureError as exc:
        reason = str(exc).removeprefix(f"{capture.name}: ")
        raise fail("source.camera.device", f"{device}: {reason}") from None
    finally:
        capture.close()


def check_files(config: Config) -> None:
    where, src, game = config.where, config.source, config.game.name

    def fail(key: str, message: str) -> ConfigError:
        return ConfigError(where, key, message)

    if isinstance(src, (SimulatedConfig, ReplayConfig)):
        path, key = (src.script, "source.simulated.script") if isinstance(src, SimulatedConfig) \
            else (src.file, "source.replay.file")
        if path is not None:
            from .sources.sim import BoardScript, BoardScriptError

            try:
                script = BoardScript.from_file(path)
            except BoardScriptError as exc:
                raise fail(key, str(exc)) from None
            if script.game != game:
                raise fail(key, f"{path} is a {script.game} script, but game.name is {game!r}")
    elif isinstance(src, SerialConfig):
        from firmware_bridge.wiring import Wiring, WiringError

        try:
            wiring = Wiring.from_file(src.wiring) if src.wiring is not None else Wiring.builtin(game)
        except WiringError as exc:
            raise fail("source.serial.wiring", str(exc)) from None
        if wiring.game != game:
            raise fail("source.serial.wiring", f"the wiring is for {wiring.game}, but game.name is {game!r}")
    elif isinstance(src, GpioConfig):
        from hardware.matrix import MatrixWiring, WiringError as MatrixWiringError

        board = get_game(game).board()
        try:
            wiring = MatrixWiring.from_file(src.wiring, board=board) if src.wiring is not None \
                else MatrixWiring.builtin(board=board)
            wiring.with_pins(src.rows, src.columns)
        except MatrixWiringError as exc:
            raise fail("source.gpio.wiring", str(exc)) from None
        check_gpio_roles(where, config.panel, src, wiring)
    elif isinstance(src, CameraConfig):
        # A calibration not made yet is the set-up state (the set-up page makes it, where this
        # key says), not an error; one that exists must be readable.
        if not src.calibration.exists() and not src.calibration.parent.is_dir():
            raise fail("source.camera.calibration", f"{src.calibration}: not made yet, and its folder "
                                                    f"{src.calibration.parent} does not exist to make it in")
        if src.calibration.exists():
            try:
                with open(src.calibration, "rb"):
                    pass
            except OSError as exc:
                raise fail("source.camera.calibration", f"{src.calibration}: cannot read: {exc.strerror}") from None
        check_video(src, fail)
        for key, extra in (("lens", src.lens), ("pieceset", src.pieceset), ("rings", src.rings)):
            if extra is None:
                continue
            try:
                with open(extra, "rb"):
                    pass
            except OSError as exc:
                raise fail(f"source.camera.{key}", f"{extra}: cannot read: {exc.strerror}") from None
    if config.hub is not None:
        check_hub_files(config.hub.broker, where, "hub")
    if config.remote is not None:
        check_hub_files(config.remote.broker, where, "remote")
    for key, path in (("data.dir", config.data.dir), ("data.journal", config.journal_path.parent)):
        if path.exists() and not path.is_dir():
            raise fail(key, f"{path} exists and is not a directory")
