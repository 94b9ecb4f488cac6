"""Helpers shared by the camera tests (imported as ``vision_support``)."""

import cv2

from rules import game_names
from vision.read.samples import SampleGrid
from vision.sheets.layout import Sheet

cv2.setNumThreads(1)

from vision.sheets.layout import DEFAULT_MODE

# The games the camera reads with the common reader (DRIFT has its own: test_drift_camera.py).
GAMES = [g for g in DEFAULT_MODE if g in game_names()]
ALL_GAMES = list(game_names())

_grids: dict[str, SampleGrid] = {}


def grid_for(game: str) -> SampleGrid:
    from rules import get_game

    from vision.readers.for_game import grid_for as grid_of_sheet

    if game not in _grids:
        _grids[game] = grid_of_sheet(Sheet.for_board(get_game(game).board()))  # DRIFT's: a DriftGrid
    return _grids[game]


def wrong_spaces(truth, got) -> dict:
    """Spaces a reading got wrong, with (truth, read): an ``occupied`` reading where a piece is
    is right; unreadable spaces are not counted (they are not wrong, only not read)."""
    from rules.view import OCCUPIED

    seen = got.view.resolved(truth)
    out = {}
    for sp in set(truth) | set(seen):
        if sp in got.unreadable:
            continue
        t, r = truth.get_tokens(sp), seen.get_tokens(sp)
        if r != t and not (t and r and all(x == OCCUPIED for x in r)):
            out[sp] = (t, r)
    return out


def assert_read_right(truth, reading) -> None:
    """Nothing read wrong: every space read is the truth (or a pile/unnamed token it may be)."""
    seen = reading.view.resolved(truth)
    for sp in set(truth) | set(seen):
        if sp not in reading.unreadable:
            assert seen.get_tokens(sp) == truth.get_tokens(sp), (sp, truth.get_tokens(sp), reading.view.get_tokens(sp))


def locked_read(reader, frame, lock):
    """``frame`` read through a fresh ``lock`` given it twice (a still camera's two looks);
    the lock must hold."""
    grey = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
    lock.update(grey)
    status = lock.update(grey)
    assert status.readable
    return reader.read(frame, status.H)


def accuracy_frame(game: str, session: int, frames: int):
    """bench/vision_accuracy.py's session ``session``, its ``frames``-th frame (hard effects):
    (the session, its reader — made first, as the bench does —, the true view, the frame, its effects)."""
    from bench.vision_accuracy import MAX_PLIES, start_of
    from rules import Fidelity
    from vision.simulated.sessions import Session, random_position

    s = Session.create(game, session)
    reader = s.reader()
    for k in range(frames):
        plies = int(s.rng.integers(0, MAX_PLIES.get(game, 60) + 1))
        view = random_position(game, int(s.rng.integers(1 << 30)), plies, start_of(game, k)).view(Fidelity.KIND)
        frame, effects = s.frame(view, hard=True)
    return s, reader, view, frame, effects


def bench_frame(monkeypatch, game: str, setting, seed: int, k: int, size: tuple[int, int], board_lens: bool = True):
    """The shelf bench's own ``k``-th frame (bench/vision_real.py's ``game`` row under
    ``setting``, a ``bench.vision_real.Setting``, at ``seed`` and ``size``): (truth, reader,
    frame, the lock's homography on it, two looks as a still camera gives). ``board_lens``
    False: read with no lens at all, as before the board measured a barrel (the frame a rule
    was written for)."""
    import bench.vision_real as vr

    if not board_lens:
        from vision.read.board_lens import BoardLens

        monkeypatch.setattr(vr, "lens_from_board", lambda sheet, frames: BoardLens(None, 0.0, 1.0, 1.0, 0.0, 0))
    got = []

    def keep(row, reader, view, frame, lock):
        if row.frames == k:
            grey = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
            lock.update(grey)
            got.append((view, reader, frame, lock.update(grey).H))

    monkeypatch.setattr(vr, "score_frame", keep)
    vr.run_setting(game, size, setting, k, seed)
    return got[0]


def drift_bench_frame(monkeypatch, setup: dict, seed: int, k: int, lens: bool = False, board_lens: bool = True):
    """The shelf bench's own ``k``-th DRIFT frame at 1080p (its row with ``setup`` changed, at
    ``seed``; ``lens``: read through a ChArUco-measured lens file; ``board_lens``: see
    :func:`bench_frame`): (truth, reader, frame, the lock)."""
    import bench.vision_real as vr

    return bench_frame(monkeypatch, "drift", vr.Setting("frame", setup, lens=lens), seed, k, vr.FHD, board_lens)
