"""The path-traced bench's render cache (issue 32): a row or a film read on the run that renders
it reads exactly what every later run reads from the cache (float16), so a table's cell does
not change between its first run and a re-read (Annelids' tilt-10° row once did: 1 of 4 usable
as rendered, 0 of 4 read again). The renderer is stood in for: nothing here needs Mitsuba."""

import numpy as np

import bench.vision_pathtraced as vp
import vision.simulated.pathtraced.pieces as pieces
import vision.simulated.pathtraced.scene as scene
from rules.view import View

from vision_support import grid_for


def _fake_render(*args, **kwargs):
    # a render's float32 values, not float16's (0.1001 is not)
    return np.full((4, 6, 10), 0.1001, np.float32)


def test_a_frame_rendered_now_reads_as_it_will_from_the_cache(monkeypatch, tmp_path):
    monkeypatch.setattr(scene, "render_channels", _fake_render)
    monkeypatch.setattr(pieces, "placed_pieces", lambda *a, **k: [])
    sheet, setup, cache = grid_for("gyges").sheet, scene.PTSetup(), vp.Cache(tmp_path)
    first, _ = vp.rendered(cache, "frame0", sheet, View(), setup, 1, [])
    again, _ = vp.rendered(cache, "frame0", sheet, View(), setup, 1, [])
    assert first.dtype == again.dtype == np.float32
    assert np.array_equal(first, again)
    assert not np.array_equal(first, _fake_render())  # the stand-in's values, rounded as the cache keeps them


def test_a_film_frame_rendered_now_reads_as_it_will_from_the_cache(monkeypatch, tmp_path):
    import bench.pathtraced_film as pf

    monkeypatch.setattr(scene, "render_channels", _fake_render)
    film = pf.PTFilm("gyges", tilt=25.0, fill=0.6, moves=1, seed=0, spp=1, guide_spp=1, blur=1, hand_spp=1,
                     cache=tmp_path)
    first = film._render("still", [], View(), [()], 0)
    again = film._render("still", [], View(), [()], 0)
    assert first.dtype == again.dtype == np.float32
    assert np.array_equal(first, again) and not np.array_equal(first, _fake_render())
