"""Exposure metered on the sheet (vision/camera/exposure.py): a small sheet on a dark table
comes out white under a camera's own auto exposure; the camera source asks for exposure
compensation until the paper is paper again, and leaves a well exposed sheet alone."""

from pathlib import Path

import cv2
import numpy as np
import pytest

from rules import Fidelity, get_game
from vision.camera.capture import ArrayCapture, CapturedFrame, Picamera2Capture
from vision.camera.exposure import PaperLevel, SheetExposure, metered_ev, paper_level
from vision.camera.source import CameraSource
from vision.read.calibration import lock_on
from vision.sheets.layout import Sheet
from vision.simulated.pathtraced.sensor import Sensor, develop

FRAMES = Path(__file__).parent / "pathtraced"


@pytest.fixture(scope="module")
def board():
    """The committed path-traced empty Gygès board at 40 % framing, as light again (sRGB undone),
    and the sheet's homography on it."""
    sheet = Sheet.for_board(get_game("gyges").board())
    img = cv2.imread(str(FRAMES / "gyges-fill40-empty0.jpg"))
    H = lock_on(sheet, [img] * 3)[-1][1]
    srgb = img[..., ::-1].astype(np.float32) / 255.0
    light = np.where(srgb <= 0.04045, srgb / 12.92, ((srgb + 0.055) / 1.055) ** 2.4).astype(np.float32)
    w, h = sheet.size
    quad = cv2.perspectiveTransform(np.float32([[0, 0], [w, 0], [w, h], [0, h]]).reshape(-1, 1, 2), H)
    on_sheet = np.zeros(img.shape[:2], np.uint8)
    cv2.fillPoly(on_sheet, [quad.astype(np.int32)], 1)
    return sheet, img, H, light, on_sheet.astype(bool)


def dark_table(light, on_sheet, factor=0.03):
    """The same board on a table far darker than the sheet (a dark wood, a black cloth)."""
    return (light * np.where(on_sheet[..., None], 1.0, factor)).astype(np.float32)


class _CameraAtEV:
    """A camera whose auto exposure takes compensation, developing a scene's light anew each
    frame (the path-traced bench's sensor: centre-weighted auto exposure, noise, JPEG)."""

    takes_exposure_value = True

    def __init__(self, light, frames=12, fps=2.0):
        self.light, self.left, self.fps, self.ev, self.n, self.asked = light, frames, fps, 0.0, 0, []

    def start(self):
        pass

    def read(self):
        if self.n >= self.left:
            return None
        self.n += 1
        img = develop(self.light, Sensor(ev=self.ev, jpeg=85), np.random.default_rng(self.n))
        return CapturedFrame(img, self.n / self.fps)

    def set_exposure_value(self, ev):
        self.asked.append(ev)
        self.ev = ev
        return True

    def close(self):
        pass


def grey(img):
    return cv2.cvtColor(img, cv2.COLOR_BGR2GRAY)


def test_the_paper_level_is_measured_where_the_sheet_is(board):
    sheet, img, H, light, on_sheet = board
    level = paper_level(grey(img), H, sheet)
    assert level is not None and 185 <= level.white <= 215 and level.clipped == 0
    assert not level.is_clipped and not level.is_dark
    # a homography that puts the sheet outside the frame says nothing
    away = np.array([[1, 0, 5000], [0, 1, 5000], [0, 0, 1]], np.float64) @ H
    assert paper_level(grey(img), away, sheet) is None


def test_a_dark_table_clips_the_paper_and_compensation_brings_it_back(board):
    sheet, img, H, light, on_sheet = board
    scene = dark_table(light, on_sheet)

    def at(ev):
        return develop(scene, Sensor(ev=ev, jpeg=85), np.random.default_rng(0))

    assert paper_level(grey(at(0.0)), H, sheet).is_clipped
    ev = metered_ev(at, H, sheet)
    assert ev < 0
    level = paper_level(grey(at(ev)), H, sheet)
    assert not level.is_clipped and not level.is_dark
    # the same board on its own table needs nothing
    assert metered_ev(lambda e: develop(light, Sensor(ev=e, jpeg=85), np.random.default_rng(0)), H, sheet) == 0.0


def test_compensation_steps_waits_for_the_camera_and_stays_in_range():
    meter = SheetExposure(settle=1.0)
    clipped, dark, fine = PaperLevel(255.0, 0.6), PaperLevel(40.0, 0.0), PaperLevel(200.0, 0.0)
    assert PaperLevel(220.0, 0.05).is_hot and not PaperLevel(220.0, 0.05).is_clipped
    assert meter.update(fine, 0.0) is None and meter.ev == 0.0
    assert meter.update(clipped, 0.0) == -1.0
    assert meter.update(clipped, 0.5) is None  # the auto exposure is still converging
    assert meter.update(clipped, 1.5) == -2.0
    assert meter.update(clipped, 3.0) is None and meter.ev == -2.0  # no further than two stops
    assert meter.update(None, 5.0) is None
    up = meter.update(dark, 5.0)
    assert up is not None and -2.0 < up <= -1.0  # a dark paper: up, by at most a step
    with pytest.raises(ValueError):
        SheetExposure(ev=3.0)


def test_the_camera_source_meters_the_sheet_in_set_up_mode(board):
    sheet, img, H, light, on_sheet = board
    camera = _CameraAtEV(dark_table(light, on_sheet))
    source = CameraSource(camera, None, fidelity=Fidelity.KIND, sheet=sheet)
    assert list(source.observations()) == []  # set-up mode: nothing read
    assert camera.asked and camera.ev < 0 and source.stats.exposure_changes == len(camera.asked)
    last = develop(camera.light, Sensor(ev=camera.ev, jpeg=85), np.random.default_rng(1))
    assert not paper_level(grey(last), H, sheet).is_clipped


def test_a_well_exposed_sheet_is_left_alone(board):
    sheet, img, H, light, on_sheet = board
    camera = _CameraAtEV(light, frames=8)
    source = CameraSource(camera, None, fidelity=Fidelity.KIND, sheet=sheet)
    list(source.observations())
    assert camera.asked == [] and source.stats.waiting > 0


class _Picamera2:
    def __init__(self, refuse=False):
        self.controls, self.refuse = [], refuse

    def create_video_configuration(self, main):
        return {"main": main}

    def configure(self, config):
        pass

    def start(self):
        pass

    def capture_array(self, name):
        return np.zeros((720, 1280, 3), np.uint8)

    def set_controls(self, controls):
        if self.refuse:
            raise RuntimeError("control ExposureValue not advertised by camera")
        self.controls.append(controls)

    def stop(self):
        pass


def test_the_pi_camera_takes_exposure_compensation_as_libcamera_names_it():
    cam = _Picamera2()
    capture = Picamera2Capture(cam)
    assert capture.takes_exposure_value and not capture.set_exposure_value(-1.0)  # not started
    capture.start()
    assert capture.set_exposure_value(-1.0) and cam.controls == [{"ExposureValue": -1.0}]
    capture.close()
    capture.start()  # reopened (unplugged, a glitch): the camera is asked again
    assert cam.controls == [{"ExposureValue": -1.0}] * 2
    refusing = Picamera2Capture(_Picamera2(refuse=True))
    refusing.start()
    assert not refusing.set_exposure_value(-1.0)


class _RoomChanges(_CameraAtEV):
    """The same camera; after ``switch`` frames the table round the sheet goes dark (its lamp
    switched off, the sheet still lit): the auto exposure follows the table and clips the paper."""

    def __init__(self, light, dark, switch, frames):
        super().__init__(light, frames=frames)
        self.dark, self.switch = dark, switch

    def read(self):
        if self.n == self.switch:
            self.light = self.dark
        return super().read()


def test_while_reading_a_clipped_paper_is_metered_and_the_board_read_again(board):
    from vision.read.calibration import calibrate
    from vision.readers.for_game import grid_for, reader_for
    from rules.view import View

    sheet, img, H, light, on_sheet = board
    grid = grid_for(sheet)
    empty = [cv2.imread(str(FRAMES / f"gyges-fill40-empty{i}.jpg")) for i in range(3)]
    reader = reader_for(grid, calibrate(grid, empty))
    camera = _RoomChanges(light, dark_table(light, on_sheet), switch=6, frames=20)
    source = CameraSource(camera, reader)
    seen = [(o.time, o.view, o.unreadable) for o in source.observations()]
    assert camera.asked and camera.ev < 0
    changed_at = 6 / camera.fps
    after = [s for s in seen if s[0] > changed_at + 1.0]
    assert after and all(v == View() and not unread for _, v, unread in after)


def test_the_strip_at_40_percent_framing_is_metered_half_a_stop_down():
    """Anacund's strip at 40 % of the frame's height, path-traced (tests/vision/pathtraced): the
    auto exposure follows the warm table round it, its white balance leaves the paper blue, and
    under the desk lamp the blue clips — every frame unusable ("glare or shadow", 0 of 4 in
    bench/vision_pathtraced.py --no-metering). Half a stop down, as metered on the sheet, the
    committed frames read whole (tests/vision/test_pathtraced_frames.py) and the meter rests."""
    sheet = Sheet.for_board(get_game("anacund").board())
    unmetered = cv2.imread(str(FRAMES / "anacund-fill40-unmetered.jpg"))
    level = paper_level(unmetered, lock_on(sheet, [unmetered] * 3)[-1][1], sheet)
    assert level.is_hot and not level.is_clipped
    assert SheetExposure().update(level, 0.0) == -0.5
    metered = cv2.imread(str(FRAMES / "anacund-fill40-empty0.jpg"))
    level = paper_level(metered, lock_on(sheet, [metered] * 3)[-1][1], sheet)
    assert not level.is_hot and not level.is_dark
    assert SheetExposure(ev=-0.5).update(level, 0.0) is None
    # in grey alone the paper is not even near clipping: the meter must look at the channels
    grey = paper_level(cv2.cvtColor(unmetered, cv2.COLOR_BGR2GRAY), lock_on(sheet, [unmetered] * 3)[-1][1], sheet)
    assert not grey.is_hot


def test_the_source_says_what_it_asked_only_of_a_camera_that_takes_it(board):
    sheet, img, H, light, on_sheet = board
    asked = CameraSource(_CameraAtEV(light), None, fidelity=Fidelity.KIND, sheet=sheet,
                         exposure=SheetExposure(ev=-0.5))
    assert asked.exposure_ev == -0.5
    video = CameraSource(ArrayCapture([]), None, fidelity=Fidelity.KIND, sheet=sheet, exposure=SheetExposure(ev=-0.5))
    assert video.exposure_ev is None  # a capture without exposure compensation is never asked


def test_the_exposure_the_board_was_learned_at_is_kept_and_asked_again_at_start(board, tmp_path):
    """The set-up page learns the empty board at the exposure the meter reached (here half a
    stop down); the calibration keeps it, and a service started on that calibration asks the
    camera for it at the first locked frame — before, a restart read at the camera's own
    exposure until the meter stepped down again (a second or two, the camera frozen meanwhile)."""
    from dataclasses import replace

    from vision.read.empty_board import Calibration
    from vision.read.samples import SampleGrid

    sheet, img, H, light, on_sheet = board
    grid = SampleGrid(sheet)
    cal = Calibration.from_empty(grid, [(img, H)])
    path = tmp_path / "cal.npz"
    replace(cal, exposure_ev=-0.5).save(path)
    back = Calibration.load(path, grid)
    assert back.exposure_ev == -0.5
    camera = _CameraAtEV(light, frames=4)
    source = CameraSource(camera, None, fidelity=Fidelity.KIND, sheet=sheet, exposure=SheetExposure.resumed(back.exposure_ev))
    list(source.observations())
    assert camera.asked == [-0.5] and source.exposure_ev == -0.5  # a well exposed sheet: nothing asked after
    assert SheetExposure.resumed(-7.0).ev == -2.0 and SheetExposure.resumed(3.0).ev == 1.0
    plain = _CameraAtEV(light, frames=4)
    list(CameraSource(plain, None, fidelity=Fidelity.KIND, sheet=sheet, exposure=SheetExposure.resumed(0.0)).observations())
    assert plain.asked == []


def test_a_still_board_is_metered_from_the_exposure_it_was_at(board):
    """``metered_ev(start=…)``, as the path-traced bench develops each frame of a row: the
    service meters while it reads a still board too, from the EV it was at, stepping down while
    the paper clips and never back up for a paper that is only well exposed."""
    sheet, img, H, light, on_sheet = board

    def at(scene):
        return lambda ev: develop(scene, Sensor(ev=ev, jpeg=85), np.random.default_rng(0))

    clipping = dark_table(light, on_sheet)
    settled = metered_ev(at(clipping), H, sheet)
    assert settled < 0.0
    assert metered_ev(at(clipping), H, sheet, start=settled) == settled  # where it settled, it rests
    assert metered_ev(at(clipping), H, sheet, start=0.5) < 0.5  # from above: down again
    assert metered_ev(at(light), H, sheet, start=-1.0) == -1.0  # well exposed at -1: left there
