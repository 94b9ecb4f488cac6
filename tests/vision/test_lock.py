"""Board lock: found, tracked through shake, dropped when bumped, re-found once settled."""

import cv2
import numpy as np

from rules import View
from vision.read.lock import BoardLock, LockState


def _grey(img):
    return cv2.cvtColor(img, cv2.COLOR_BGR2GRAY)


def _err(sheet, H, pose):
    """Largest distance (frame px) between where H and the true pose put the sheet's spaces."""
    pts = np.float32([[(s.x, s.y) for s in sheet.shapes]])
    return float(np.abs(cv2.perspectiveTransform(pts, H) - cv2.perspectiveTransform(pts, pose.H)).max())


def test_lock_fits_the_true_homography_and_tracks_shake(sessions):
    s = sessions("gyges")
    lock = BoardLock(s.sheet)
    frame = s.renderer.frame(View(), s.pose, s.effects(hard=False), s.rng)
    assert lock.update(_grey(frame)).state is LockState.SEARCHING  # one sighting is not yet a lock
    status = lock.update(_grey(frame))
    assert status.state is LockState.LOCKED and status.relocked
    assert _err(s.sheet, status.H, s.pose) < 1.0
    for _ in range(5):
        pose = s.pose.jittered(s.rng, 1.0)
        status = lock.update(_grey(s.renderer.frame(View(), pose, s.effects(hard=False), s.rng)))
        assert status.state is LockState.LOCKED and not status.relocked
        assert _err(s.sheet, status.H, pose) < 1.0  # the homography follows the shake


def test_bumped_camera_freezes_until_the_markers_settle_again(sessions):
    s = sessions("gyges")
    lock = BoardLock(s.sheet)
    still = s.renderer.frame(View(), s.pose, s.effects(hard=False), s.rng)
    lock.update(_grey(still))
    assert lock.update(_grey(still)).readable
    bumped = s.pose.moved(25, -12)
    after = s.renderer.frame(View(), bumped, s.effects(hard=False), s.rng)
    status = lock.update(_grey(after))
    assert status.bumped and not status.readable and status.H is None
    assert not lock.update(_grey(after)).readable  # first sighting after the bump: not yet trusted
    status = lock.update(_grey(after))
    assert status.readable and _err(s.sheet, status.H, bumped) < 1.0


def test_hand_over_two_corners_holds_the_lock_but_reads_nothing(sessions):
    s = sessions("gyges")
    lock = BoardLock(s.sheet)
    frame = s.renderer.frame(View(), s.pose, s.effects(hard=False), s.rng)
    lock.update(_grey(frame))
    lock.update(_grey(frame))
    covered = frame.copy()
    for i in (0, 1):
        c = cv2.perspectiveTransform(s.sheet.marker_corners()[i][None], s.pose.H)[0]
        x0, y0 = np.floor(c.min(axis=0)).astype(int) - 3
        x1, y1 = np.ceil(c.max(axis=0)).astype(int) + 3
        covered[y0:y1, x0:x1] = (140, 170, 220)  # skin
    status = lock.update(_grey(covered))
    assert status.state is LockState.OCCLUDED and not status.readable
    assert lock.update(_grey(frame)).readable  # hand gone: the same lock, no re-search


def test_no_board_in_view_never_locks(sessions):
    s = sessions("gyges")
    lock = BoardLock(s.sheet)
    blank = np.full((720, 1280), 90, np.uint8)
    for _ in range(3):
        assert lock.update(blank).state is LockState.SEARCHING
