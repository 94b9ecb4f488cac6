"""Drill: the camera freezes, goes black, and is bumped, all in one game.

A scripted Gygès game is rendered as 1280x720 video of a synthetic camera set-up
(vision.simulated.sessions), and the video is damaged the ways a real camera fails: the driver
repeats one frame for two seconds (a frozen camera, frozen while a hand is over the board),
then two seconds of black frames (the lens covered, the exposure lost), then the camera is
knocked to a new pose for the rest of the game. Through CameraSource → stabiliser → referee
the game must come out exactly as scripted, with no illegal or rejected decision.
"""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("cv2")
from rules import Fidelity  # noqa: E402
from tableref.journal import Journal  # noqa: E402
from tableref.referee import Referee  # noqa: E402
from tableref.service import play_observations  # noqa: E402
from tableref.sources.sim import render_script  # noqa: E402
from tableref.stabiliser import Stabiliser  # noqa: E402

vision_sessions = pytest.importorskip("vision.simulated.sessions")
from vision.camera.capture import ArrayCapture  # noqa: E402
from vision.camera.source import CameraSource  # noqa: E402
from vision.simulated.video import script_frames  # noqa: E402

FPS = 10


def rendered(session, items, pose, effects, seed):
    """The script's frames as video; each distinct board is rendered once and its image reused
    while the board holds (rendering is the slow part; the camera's faults are the point)."""
    unique = list(dict.fromkeys(items))
    images = dict(zip(unique, script_frames(session.renderer, unique, pose=pose, effects=effects, seed=seed)))
    return [images[item] for item in items]


def test_camera_frozen_black_and_bumped_mid_game(tmp_path):
    s = vision_sessions.Session.create("gyges", 1)
    start, played = vision_sessions.scripted_game("gyges", 5, 2)
    script = render_script(start, played, fidelity=Fidelity.KIND, seed=5, noise=False)
    texts, state = [], start
    for m in played:
        texts.append(state.move_text(m))
        state = state.successor(m)
    items = [(f.view, f.unreadable) for f in script.frames]
    effects = s.effects(hard=False)
    n = len(items)
    # A frame with a hand over the board, in the first third: the one the camera freezes on.
    hand = next((i for i in range(n // 6, n // 3) if items[i][1]), n // 4)
    black_at, bump_at = n // 2, 2 * n // 3
    head = rendered(s, items[:bump_at], s.pose, effects, 6)
    tail = rendered(s, items[bump_at:], s.pose.moved(30, 18), effects, 7)
    frozen = [head[hand]] * (2 * FPS)
    black = [np.zeros_like(head[0])] * (2 * FPS)
    frames = head[:hand] + frozen + head[hand:black_at] + black + head[black_at:] + tail

    source = CameraSource(ArrayCapture(frames, fps=FPS), s.reader())
    decisions = []
    with Journal(tmp_path / "j.sqlite3") as journal:
        referee = Referee.start(journal, "gyges", fidelity=Fidelity.KIND, start=start)
        play_observations(referee, source.observations(), Stabiliser(), on_decision=decisions.append)
        record = journal.load(referee.record.id)
    kinds = [d.kind for d in decisions]
    assert record.moves == texts, kinds
    assert "illegal" not in kinds and "rejected" not in kinds
    assert source.stats.bumps >= 1
    assert source.stats.frozen >= 2 * FPS  # the black spell: no lock, nothing read
