"""Gygès's rings without stickers in the path-traced scene (issue 32 item 4): the stepped ring of
vision/pieces/rings.py turned as one mesh, every tier's rim a quarter-round of RIM_MM."""

import numpy as np
import pytest

from vision_support import grid_for

from rules import Fidelity
from vision.pieces.rings import RIM_MM, RING_TOKENS, TIERS
from vision.simulated.pathtraced.rings import lathe, profile, ring_obj


def _face_normals(pos: np.ndarray, tri: np.ndarray) -> np.ndarray:
    a, b, c = (pos[tri[:, k]] for k in range(3))
    n = np.cross(b - a, c - a)
    return n / np.linalg.norm(n, axis=1, keepdims=True)


@pytest.mark.parametrize("tiers", [1, 2, 3])
def test_a_ring_is_its_tiers_seen_from_above(tiers):
    pos, nor, tri = lathe(profile(tiers))
    r = np.hypot(pos[:, 0], pos[:, 1])
    assert r.max() == pytest.approx(TIERS[0][0], abs=1e-6)  # the foot is the widest tier
    assert pos[:, 2].max() == pytest.approx(TIERS[tiers - 1][1])  # as tall as its height
    for radius, top in TIERS[:tiers]:
        flat = (np.abs(pos[:, 2] - top) < 1e-9) & (nor[:, 2] > 0.999)
        # the flat top starts where the rim's round ends, and nothing stands above the tier's edge
        assert r[flat].max() == pytest.approx(radius - RIM_MM, abs=1e-6)
        assert not np.any((r > radius - RIM_MM + 1e-6) & (pos[:, 2] > top + 1e-9))
    # the rim's round: its normals turn from out (side) to up (top)
    rim = (r > TIERS[0][0] - RIM_MM - 1e-6) & (pos[:, 2] > TIERS[0][1] - RIM_MM - 1e-6)
    assert np.ptp(nor[rim][:, 2]) == pytest.approx(1.0, abs=1e-6)


@pytest.mark.parametrize("tiers", [1, 3])
def test_a_ring_s_faces_point_out_as_its_normals_do(tiers, tmp_path):
    pos, nor, tri = lathe(profile(tiers))
    vertex = nor[tri].mean(axis=1)
    assert np.all(np.einsum("ij,ij->i", _face_normals(pos, tri), vertex) > 0)
    # the OBJ, in the scene's frame (heights are negative z): still pointing out
    lines = ring_obj(tiers, tmp_path).read_text().splitlines()
    v = np.array([[float(x) for x in ln.split()[1:]] for ln in lines if ln.startswith("v ")])
    vn = np.array([[float(x) for x in ln.split()[1:]] for ln in lines if ln.startswith("vn ")])
    f = np.array([[int(x.split("//")[0]) - 1 for x in ln.split()[1:]] for ln in lines if ln.startswith("f ")])
    assert v[:, 2].min() == pytest.approx(-TIERS[tiers - 1][1], abs=1e-3) and v[:, 2].max() <= 0
    assert np.all(np.einsum("ij,ij->i", _face_normals(v, f), vn[f].mean(axis=1)) > 0)


def test_a_ring_has_one_to_three_tiers():
    with pytest.raises(ValueError, match="1 to 3 tiers"):
        profile(4)


def test_without_stickers_each_ring_is_its_stepped_mesh(tmp_path):
    """``PTSetup.sticker = "none"``: no sticker anywhere, every ring one metal mesh of as many
    tiers as its token says, standing on the paper where it was put down."""
    pytest.importorskip("mitsuba")
    from vision.simulated.pathtraced.pieces import placed_pieces
    from vision.simulated.pathtraced.scene import PTSetup, scene_dict
    from vision.simulated.sessions import random_position

    sheet = grid_for("gyges").sheet
    view = random_position("gyges", 4, 20, None).view(Fidelity.KIND)
    pieces = placed_pieces(sheet, view, np.random.default_rng(4))
    d = scene_dict(sheet, pieces, PTSetup(size=(64, 36), spp=1, sticker="none"), tmp_path, 4, view)
    assert not [k for k in d if k.endswith("sticker")]
    rings = {k: v for k, v in d.items() if k.endswith("ring")}
    assert len(rings) == len(pieces) == sum(len(view.get_tokens(sp)) for sp in view)
    for i, p in enumerate(pieces):
        shape = rings[f"p{i}ring"]
        assert shape["type"] == "obj" and shape["filename"].split("/")[-1].startswith(f"gyges-ring-{RING_TOKENS[p.token]}-")
        bsdf = shape["bsdf"]["bsdf"]
        assert (bsdf["type"], bsdf["material"]) == ("roughconductor", "Al")
        at = np.array(shape["to_world"].matrix)[:3, 3]
        assert at[:2] == pytest.approx([p.solid.x, p.solid.y])
        assert -4.0 < at[2] <= 0.0  # on the bent paper, never in it


def test_wooden_rings_are_varnished_wood_and_an_unknown_finish_is_refused(tmp_path):
    """``PTSetup.ring_finish = "wood"``: the same stepped meshes in a satin varnish over beech
    (a dielectric's gloss over a diffuse colour), not metal; a finish the scene does not know
    is one clear error."""
    pytest.importorskip("mitsuba")
    from vision.simulated.pathtraced.pieces import placed_pieces
    from vision.simulated.pathtraced.scene import PTSetup, scene_dict
    from vision.simulated.sessions import random_position

    sheet = grid_for("gyges").sheet
    view = random_position("gyges", 4, 20, None).view(Fidelity.KIND)
    pieces = placed_pieces(sheet, view, np.random.default_rng(4))
    d = scene_dict(sheet, pieces, PTSetup(size=(64, 36), spp=1, sticker="none", ring_finish="wood"), tmp_path, 4, view)
    rings = [v for k, v in d.items() if k.endswith("ring")]
    assert len(rings) == len(pieces)
    for shape in rings:
        bsdf = shape["bsdf"]["bsdf"]
        assert bsdf["type"] == "roughplastic" and "material" not in bsdf
        r, g, b = bsdf["diffuse_reflectance"]["value"]
        assert r > g > b > 0.05  # beech: warm, neither white nor dark
    with pytest.raises(ValueError, match="ring_finish: one of metal, wood"):
        PTSetup(ring_finish="brass")
