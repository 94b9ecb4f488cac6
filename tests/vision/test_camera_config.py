"""[source.camera] lens and pieceset keys: parsed, checked, and a bad file is one line naming the key."""

import contextlib
import io

import numpy as np
import pytest

from tableref.config import load_config
from tableref.serve import main
from vision.read.lens import Lens

BASE = ('[game]\nname = "gyges"\n[source]\nkind = "camera"\n[source.camera]\ncalibration = "cal.npz"\n'
        '{extra}[web]\nport = 0\n[panel]\nenabled = false\n[data]\ndir = "d"\n')


def _run(*argv):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(argv))
    return code, err.getvalue()


def _calibration(tmp_path):
    from rules import get_game
    from vision.read.empty_board import Calibration
    from vision.read.samples import SampleGrid
    from vision.sheets.layout import Sheet

    grid = SampleGrid(Sheet.for_board(get_game("gyges").board()))
    n, p = len(grid.body.mm), len(grid.probes)
    Calibration("gyges", "tags", np.zeros((n, 3)), np.full((n, 3), 255.0), np.zeros((n, 3)),
                np.full((p, 3), 200.0)).save(tmp_path / "cal.npz")


def test_lens_and_pieceset_keys_are_read(tmp_path):
    cfg = tmp_path / "t.toml"
    cfg.write_text(BASE.format(extra='lens = "lens.json"\npieceset = "mine.json"\n'))
    src = load_config(cfg).source
    assert src.lens == tmp_path / "lens.json" and src.pieceset == tmp_path / "mine.json"
    cfg.write_text(BASE.format(extra=""))
    assert load_config(cfg).source.lens is None


@pytest.mark.parametrize("extra, key", [('lens = "lens.json"\n', "source.camera.lens"),
                                        ('pieceset = "mine.json"\n', "source.camera.pieceset")])
def test_a_bad_lens_or_pieceset_file_is_one_line(tmp_path, extra, key):
    _calibration(tmp_path)
    (tmp_path / "lens.json").write_text('{"version": 1, "size": [1280, 720], "K": [[1, 2], [3, 4]], "dist": []}')
    (tmp_path / "mine.json").write_text('{"game": "anacund", "pieces": []}')
    cfg = tmp_path / "t.toml"
    cfg.write_text(BASE.format(extra=extra))
    code, err = _run("--config", str(cfg))
    assert code == 2 and f"{key}:" in err, err


def test_a_good_lens_file_is_accepted_by_the_service(tmp_path):
    _calibration(tmp_path)
    Lens(np.array([[900.0, 0, 640], [0, 900, 360], [0, 0, 1]]), np.zeros(5), (1280, 720)).save(tmp_path / "lens.json")
    from tableref.config import load_config as lc
    from tableref.service import _open_camera

    cfg = tmp_path / "t.toml"
    cfg.write_text(BASE.format(extra='lens = "lens.json"\ndevice = "none.avi"\nbackend = "opencv"\n'))
    feed = _open_camera(lc(cfg).source, "gyges")
    assert feed.camera.lock.lens is not None and feed.camera.reader.lens is not None
