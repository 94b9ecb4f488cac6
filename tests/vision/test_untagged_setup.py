"""Gygès without stickers as a user sets it up (issue 17 item 3): `tableref calibrate` on the
empty board, then `--position default --rings FILE` on the default set-up, then `[source.camera]
rings = FILE` — the service reads the rings by their tiers. A bad or foreign ring file is one
line naming the key."""

import contextlib
import io
import json
from dataclasses import replace

import pytest

from bench.vision_real import BASE_SCENE, BASE_SETUP, judge
from rules import Fidelity, View, get_game
from tableref.cli import vision as vision_cli
from tableref.config import load_config
from tableref.serve import main as serve_main
from vision.read.calibration import lock_on
from vision.readers.ring_reading import RingModel, RingReader
from vision.sheets.layout import Sheet
from vision.simulated.camera_model import CameraModel
from vision.simulated.video import write_video

UNTAGGED = replace(BASE_SCENE, tags=False)
CONFIG = ('[game]\nname = "{game}"\n[source]\nkind = "camera"\n[source.camera]\ncalibration = "cal.npz"\n'
          'device = "/dev/video9"\nbackend = "opencv"\nrings = "rings.json"\n'
          '[web]\nport = 0\n[panel]\nenabled = false\n[data]\ndir = "d"\n')


@pytest.fixture(scope="module")
def films(tmp_path_factory):
    d = tmp_path_factory.mktemp("untagged")
    sheet = Sheet.for_board(get_game("gyges").board())
    model = CameraModel(sheet, BASE_SETUP)
    start = get_game("gyges").default_setup().view(Fidelity.KIND)
    write_video(d / "empty.avi", [model.render(replace(UNTAGGED, seed=i)) for i in range(4)], fps=10)
    write_video(d / "start.avi", [model.render(replace(UNTAGGED, view=start, seed=10 + i)) for i in range(4)], fps=10)
    return d, sheet, model


def _calibrate(d, *extra):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = vision_cli.main(["calibrate", "--game", "gyges", "--out", str(d / "cal.npz"), "--frames", "2", *extra])
    return code, out.getvalue()


def test_rings_learned_by_the_command_are_read_by_the_service(films, capsys):
    d, sheet, model = films
    assert _calibrate(d, "--source", str(d / "empty.avi"))[0] == 0
    before = (d / "cal.npz").read_bytes()
    code, out = _calibrate(d, "--source", str(d / "start.avi"), "--position", "default", "--rings", str(d / "rings.json"))
    assert code == 0, capsys.readouterr().err
    report = json.loads(out)
    assert report["rings"].endswith("rings.json") and all(p > a for p, a in zip(report["present"], report["absent"]))
    assert (d / "cal.npz").read_bytes() == before  # the empty board's calibration is left as it was
    RingModel.load(d / "rings.json")

    (d / "t.toml").write_text(CONFIG.format(game="gyges"))
    from tableref.service import _open_camera

    feed = _open_camera(load_config(d / "t.toml").source, "gyges")
    reader = feed.camera.reader
    assert isinstance(reader, RingReader)
    view = View({"b3": ["1"], "d4": ["2"], "e2": ["3"], "a6": ["2"]})
    frame = model.render(replace(UNTAGGED, view=view, seed=40))
    (_, H), = lock_on(sheet, [frame, frame])[-1:]
    got = reader.read(frame, H)
    wrong, occupied = judge(view, got.view, got.unreadable)
    assert wrong == 0 and not got.unreadable and occupied < len(view), (got.view, got.why)


def test_rings_are_refused_where_they_cannot_be_learned_or_used(films, capsys):
    d, _, _ = films
    assert _calibrate(d, "--source", str(d / "start.avi"), "--rings", str(d / "r.json"))[0] == 2
    assert "--rings: learns Gygès's rings from a known position" in capsys.readouterr().err
    (d / "bad.json").write_text('{"gyges_rings": {"present": [0.4, 0.4, 0.4], "absent": [0, 0, 0], "flat_max": 0.1, '
                                '"version": 1, "shine": 2}}')
    (d / "t2.toml").write_text(CONFIG.format(game="gyges").replace("rings.json", "bad.json"))
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        assert serve_main(["--config", str(d / "t2.toml")]) == 2
    assert "source.camera.rings:" in err.getvalue() and "shine" in err.getvalue(), err.getvalue()
