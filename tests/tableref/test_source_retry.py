"""A board source that fails is opened again with backoff (tableref/source_retry.py), shown as
reconnecting on the page meanwhile, and the game goes on once it reads: moves before the
failure stay in the journal, a move made while it was away is judged when it is back, and
stopping the service while it waits is prompt.

The camera is the service's own: the configured ``[source.camera]`` (opencv, camera 0) opened
by ``open_feed`` into the real ``OpenCVCapture``, with ``cv2.VideoCapture`` replaced by a fake
that behaves as a USB webcam does (an unplugged one gives ``(False, None)`` and a new one
cannot be opened until it is back; one corrupt frame raises ``cv2.error``), filming frames of
the camera model read by the real reader. The serial board is the reference firmware behind a
real pty (firmware_bridge.simulator: unplugging closes the pty, replugging opens a new one
behind the same path), read by pyserial."""

from __future__ import annotations

import logging
import threading
import time

import pytest
from waiting import wait_for

from rules import Fidelity, Observation, View, get_game
from tableref.journal import Journal
from tableref.serve import Service
from tableref.service import Feed
from tableref.source_retry import Pump
from tableref.source_retry import Backoff, one_line
from tableref.stabiliser import Stabiliser

QUICK = Backoff((0.1, 0.2, 0.4), healthy_after=5.0)


# -- the schedule ---------------------------------------------------------------------------


def test_the_waits_grow_to_thirty_seconds_and_stay_there():
    assert [Backoff().delay(n) for n in range(1, 9)] == [1, 2, 5, 10, 20, 30, 30, 30]
    with pytest.raises(ValueError, match="backoff delays"):
        Backoff(())
    with pytest.raises(ValueError, match="backoff delays"):
        Backoff((1.0, float("nan")))
    # OpenCV's messages run over several lines: the page shows the first.
    assert one_line(RuntimeError("OpenCV(4.9.0) x.cpp:1: error: (-215) !buf.empty()\n\n  in imdecode_\n")) \
        == "OpenCV(4.9.0) x.cpp:1: error: (-215) !buf.empty()"
    assert one_line(OSError()) == "OSError"


# -- the pump on its own --------------------------------------------------------------------


class FlakyFeed(Feed):
    """A live source whose first reading fails, then will not open ``refusals`` times."""

    kind = "gpio"
    reopenable = True

    def __init__(self, refusals: int) -> None:
        super().__init__("flaky board")
        self.refusals = refusals
        self.calls: list[str] = []
        self.statuses = []
        self.subscribe_status(self.statuses.append)
        self._stop = threading.Event()
        self._session = 0

    def start(self) -> None:
        self.calls.append("start")
        self.set_status("connected", True)

    def reopen(self) -> None:
        self.calls.append("reopen")
        if self.refusals:
            self.refusals -= 1
            raise OSError(2, "No such file or directory: '/dev/board'")

    def release(self) -> None:
        self.calls.append("release")

    def observations(self):
        self._session += 1
        view = View({"a1": ("x",)})
        for i in range(3):
            if self._stop.is_set():
                return
            yield Observation(view, time.monotonic(), Fidelity.OCCUPANCY, "flaky")
            time.sleep(0.01)
        if self._session == 1:
            raise OSError(5, "read failed: Input/output error")
        while not self._stop.wait(0.01):
            yield Observation(View({"b2": ("x",)}), time.monotonic(), Fidelity.OCCUPANCY, "flaky")

    def stop(self) -> None:
        self._stop.set()

    def close(self) -> None:
        self._stop.set()


def test_a_failing_source_is_released_reopened_until_it_reads_and_logged_once_per_reason(caplog):
    caplog.set_level(logging.DEBUG, logger="tableref.service")
    feed, views = FlakyFeed(refusals=4), []
    pump = Pump(feed, Stabiliser(0.0, 1), lambda cmd: views.append(cmd.view), backoff=Backoff((0.01, 0.02, 0.04)))
    feed.start()
    pump.start()
    try:
        wait_for(lambda: feed.status.state == "connected" and len(views) == 2, 5, "the source read again")
    finally:
        pump.stop()
    assert feed.calls == ["start"] + ["release", "reopen"] * 5
    shown = [s.detail for s in feed.statuses if s.state == "reconnecting"]
    assert shown[0] == "[Errno 5] read failed: Input/output error; 1 failed attempt, next try in 0.01 s"
    assert shown[-1] == "[Errno 2] No such file or directory: '/dev/board'; 5 failed attempts, next try in 0.04 s"
    assert [s.badge for s in feed.statuses if s.state == "reconnecting"] == ["lost"] * 5
    # The view seen before the failure and the one after: each judged once.
    assert views == [View({"a1": ("x",)}), View({"b2": ("x",)})]
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    # Five failures, three lines: the first (with its traceback), the new reason, the longest wait.
    assert len(warnings) == 3, warnings
    assert warnings[0].startswith("source flaky board failed: OSError: [Errno 5] read failed")
    assert "now: FileNotFoundError: [Errno 2] No such file" in warnings[1] and "trying every 0.04 s" in warnings[2]
    assert sum(r.exc_info is not None for r in caplog.records) == 1
    assert any("reads again after 5 failed attempts" in r.getMessage() for r in caplog.records)


def test_a_recording_that_fails_is_not_played_again():
    feed = FlakyFeed(refusals=0)
    feed.reopenable = False  # as a board script or a video file: reopening would replay it
    pump = Pump(feed, Stabiliser(0.0, 1), lambda cmd: None, backoff=Backoff((0.01,)))
    feed.start()
    pump.start()
    try:
        wait_for(lambda: feed.status.state == "failed", 5, "the failure")
    finally:
        pump.stop()
    assert feed.status.detail == "[Errno 5] read failed: Input/output error" and "reopen" not in feed.calls


# -- the camera, through the service ----------------------------------------------------------


class Webcam:
    """The USB webcam every ``cv2.VideoCapture(0)`` the service makes talks to: what is in
    front of it, whether its cable is in, and frames that will come corrupt."""

    def __init__(self, frames: dict[str, list], fps: float = 15.0) -> None:
        self.frames, self.fps = frames, fps
        self.scene = next(iter(frames))
        self.plugged, self.cable = True, 0  # cable: which plugging-in this is
        self.corrupt = 0  # the next reads that raise cv2.error
        self.opened: list[object] = []  # the index each VideoCapture was made with
        self._n = 0

    def unplug(self) -> None:
        self.plugged = False

    def plug(self) -> None:
        self.cable += 1
        self.plugged = True


class FakeVideoCapture:
    """As ``cv2.VideoCapture`` on a webcam: a handle made while it is unplugged never opens,
    and one whose cable was pulled reads ``(False, None)`` for good, even once it is back."""

    def __init__(self, index: object, webcam: Webcam) -> None:
        webcam.opened.append(index)
        self.webcam, self.cable = webcam, webcam.cable if webcam.plugged else None
        self.released = False

    def isOpened(self) -> bool:  # OpenCV's name
        return self.cable is not None and not self.released

    def set(self, prop: int, value: float) -> bool:
        return True

    def get(self, prop: int) -> float:
        return 0.0

    def read(self):
        import cv2

        cam = self.webcam
        time.sleep(1 / cam.fps)
        if self.released or not cam.plugged or self.cable != cam.cable:
            return False, None
        if cam.corrupt:
            cam.corrupt -= 1
            raise cv2.error("OpenCV(4.9.0) modules/imgcodecs/src/loadsave.cpp:816: error: (-215:Assertion failed) "
                            "!buf.empty() in function 'imdecode_'\n")
        cam._n += 1
        shots = cam.frames[cam.scene]
        return True, shots[cam._n % len(shots)].copy()

    def release(self) -> None:
        self.released = True


@pytest.fixture
def filmed(tmp_path):
    """An Anacund game's first three moves as the camera model films them, and the calibration."""
    pytest.importorskip("cv2")
    from vision.read.samples import SampleGrid
    from vision.sheets.layout import Sheet
    from vision.simulated.sessions import Session, scripted_game
    from vision.simulated.video import script_frames

    game = "anacund"
    session = Session.create(game, 1, grid=SampleGrid(Sheet.for_board(get_game(game).board())))
    session.calibration.save(tmp_path / "cal.npz")
    start, played = scripted_game(game, 8, 3)
    states = [start]
    for move in played:
        states.append(states[-1].successor(move))
    shots = list(script_frames(session.renderer, [(s.view(Fidelity.KIND), frozenset()) for s in states for _ in "ab"],
                               pose=session.pose, effects=session.effects(hard=False), seed=9))
    texts = [state.move_text(move) for state, move in zip(states, played)]
    scenes = ("start", "one", "two", "three")
    return game, tmp_path / "cal.npz", {name: shots[2 * i:2 * i + 2] for i, name in enumerate(scenes)}, texts


def source_on_page(svc):
    return svc.app.test_client().get("/api/state").get_json()["source"]


def test_a_camera_glitch_and_an_unplugged_camera_are_reopened_and_the_game_goes_on(tmp_path, filmed, monkeypatch,
                                                                                   caplog):
    import cv2

    from tableref.config import CameraConfig

    caplog.set_level(logging.INFO, logger="tableref.service")
    game, calibration, frames, moves = filmed
    webcam = Webcam(frames)
    monkeypatch.setattr(cv2, "VideoCapture", lambda index: FakeVideoCapture(index, webcam))
    source = CameraConfig(calibration, "opencv", 0, Fidelity.KIND)
    journal = tmp_path / "j.sqlite3"
    with Service(journal, tmp_path / "a.json", game=game, setup="start", source=source,
                 source_backoff=QUICK) as svc:
        statuses = []
        svc.feed.subscribe_status(statuses.append)
        wait_for(lambda: source_on_page(svc)["status"] == "steady", 20, "the board locked")
        webcam.scene = "one"
        wait_for(lambda: svc.table.snapshot()["moves"] == moves[:1], 20, "the first move")

        # One corrupt frame: OpenCV raises; the camera is released, opened again, and reads on.
        webcam.corrupt = 1
        wait_for(lambda: any(s.state == "reconnecting" for s in statuses) and svc.feed.status.state == "locked", 10,
                 "the glitch passed")
        glitch = next(s for s in statuses if s.state == "reconnecting")
        assert glitch.detail == ("OpenCV(4.9.0) modules/imgcodecs/src/loadsave.cpp:816: error: (-215:Assertion "
                                 "failed) !buf.empty() in function 'imdecode_'; 1 failed attempt, next try in 0.1 s")

        # The cable is pulled: no frames, and no camera to open until it is back.
        webcam.unplug()
        wait_for(lambda: "3 failed attempts" in source_on_page(svc)["text"], 10, "the page to count the attempts")
        page = source_on_page(svc)
        assert page["status"] == "lost" and page["text"].startswith("camera opencv 0: reconnecting (opencv:0: "
                                                                   "cannot open the camera or video; 3 failed")
        health = svc.health().to_dict()
        assert health["ok"] is False and health["source"]["state"] == "reconnecting"
        with Journal(journal) as j:  # what was recorded before is there
            assert j.load(svc.referee.record.id).moves == moves[:1]
        webcam.scene = "two"  # the next move is made while the camera is away
        webcam.plug()
        wait_for(lambda: svc.table.snapshot()["moves"] == moves[:2], 20, "the move made while it was away")
        assert source_on_page(svc)["status"] == "steady" and svc.feed.status.state == "locked"
        webcam.scene = "three"  # and the game goes on
        wait_for(lambda: svc.table.snapshot()["moves"] == moves, 20, "the move after it came back")
        game_id = svc.referee.record.id
    with Journal(journal) as j:
        record = j.load(game_id)
    assert record.moves == moves
    # Every reopening went through cv2.VideoCapture, the way the service opens it at first.
    assert len(webcam.opened) >= 5 and set(webcam.opened) == {0}
    said = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
    assert len(said) <= 5, said  # glitch 1; unplug: the first, the new reason, the longest wait
    assert sum("reads again" in r.getMessage() for r in caplog.records) == 2


def test_a_camera_that_is_not_there_is_tried_again_and_stopping_while_waiting_is_prompt(tmp_path, monkeypatch):
    """A camera configured but not plugged in: the service starts, says so once, the page shows
    why, and it is tried again every 30 s (it may be plugged in later); stopping does not wait."""
    import cv2

    from tableref.config import CameraConfig

    webcam = Webcam({"nothing": []})
    webcam.unplug()
    monkeypatch.setattr(cv2, "VideoCapture", lambda index: FakeVideoCapture(index, webcam))
    # No calibration yet (set-up mode): the camera is still opened, to be set up.
    source = CameraConfig(tmp_path / "cal.npz", "opencv", 0, Fidelity.KIND)
    svc = Service(tmp_path / "j.sqlite3", tmp_path / "a.json", game="gyges", source=source,
                  source_backoff=Backoff((0.05, 30.0)))
    svc.start()
    try:
        assert any("could not start: opencv:0: cannot open the camera or video; trying again" in n
                   for n in svc.notices), svc.notices
        wait_for(lambda: "next try in 30 s" in source_on_page(svc)["text"], 10, "the long wait")
        page = source_on_page(svc)
        assert page["status"] == "lost" and page["text"] == ("camera opencv 0: reconnecting (opencv:0: cannot open "
                                                             "the camera or video; 2 failed attempts, next try in 30 s)")
    finally:
        began = time.monotonic()
        svc.close()
        took = time.monotonic() - began
    assert took < 2.0, f"stopping took {took:.1f} s while the source waited to be reopened"
    assert webcam.opened == [0, 0]


# -- the serial board, through the service ----------------------------------------------------


def unmistakable(state):
    """A move whose occupancy view no other legal move gives (no question asked)."""
    views = {}
    for m in state.legal_moves():
        views.setdefault(state.successor(m).view(Fidelity.OCCUPANCY), []).append(m)
    return next(ms[0] for ms in views.values() if len(ms) == 1)


def test_a_serial_board_unplugged_and_plugged_back_goes_on_with_the_game(tmp_path):
    from firmware_bridge.simulator import BoardSimulator
    from firmware_bridge.wiring import Wiring
    from tableref.config import SerialConfig

    gyges = get_game("gyges")
    start = gyges.default_setup()
    first = unmistakable(start)
    second = unmistakable(start.successor(first))
    after = [start.successor(first), start.successor(first).successor(second)]
    journal = tmp_path / "j.sqlite3"
    with BoardSimulator(Wiring.builtin("gyges"), scan_ms=2) as board:
        board.set_view(start.view(Fidelity.OCCUPANCY))
        with Service(journal, tmp_path / "a.json", game="gyges", setup="default", settle=0.2, readings=2,
                     source=SerialConfig(str(board.device_path))) as svc:
            wait_for(lambda: source_on_page(svc)["status"] == "steady", 10, "the board connected")
            board.set_view(after[0].view(Fidelity.OCCUPANCY))
            wait_for(lambda: svc.referee.ply == 1, 10, "the first move")
            board.unplug()  # the pty is closed: the device is gone
            wait_for(lambda: source_on_page(svc)["status"] == "lost", 10, "the page to show it lost")
            assert "disconnected" in source_on_page(svc)["text"]
            with Journal(journal) as j:
                assert j.load(svc.referee.record.id).states[1] == after[0]
            board.set_view(after[1].view(Fidelity.OCCUPANCY))  # moved while unplugged (the board is off)
            board.replug()  # a new pty behind the same path
            wait_for(lambda: svc.referee.ply == 2, 15, "the move made while it was away")
            assert svc.feed.status.state == "connected"
            game_id = svc.referee.record.id
    with Journal(journal) as j:
        assert j.load(game_id).states == [start, *after]
