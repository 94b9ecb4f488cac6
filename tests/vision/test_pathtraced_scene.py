"""The path-traced scene's pieces, every game's (issue 32): built, never rendered.

Each game's Mitsuba scene description is built for random positions (``scene_dict``: no
``mi.load_dict``, no render) and checked: every token of the view got its shapes with its
game's material, every placement stays within its space's jitter and clear of its neighbours,
and DRIFT's ring markers lie where the view's rotations put them.
"""

import math
from collections import Counter

import numpy as np
import pytest

from vision_support import grid_for

from rules import Fidelity
from rules.view import MORE, OCCUPIED
from vision.sheets import layout

pytest.importorskip("mitsuba")

GAMES = ("gyges", "anacund", "annihilation", "drift", "annelids")


def _body_kinds(game: str, token: str) -> set[tuple[str, str | None]]:
    """The BSDF (type, conductor) a piece's body must have: docs/vision.md, "The scene"."""
    base = token.split(":", 1)[0]
    if game == "gyges":
        return {("roughconductor", "Al")}
    if game == "anacund":
        return {("diffuse", None)}  # painted wood
    if game in ("annihilation", "annelids"):
        return {("roughplastic", None)}
    if base in ("copper", "gold", "silver"):
        return {("roughconductor", {"copper": "Cu", "gold": "Au", "silver": "Ag"}[base])}
    if token.startswith("carried:"):
        return {("roughplastic", None)}
    return {("diffuse", None)}  # DRIFT's wooden pieces


def _kind(bsdf: dict) -> tuple[str, str | None]:
    while bsdf["type"] in ("twosided", "mask"):
        bsdf = bsdf.get("bsdf") or bsdf["material"]
    return bsdf["type"], bsdf.get("material")


def _expected_tokens(sheet, view) -> Counter:
    from vision.simulated.scene_pieces import pieceset_for

    pset = pieceset_for(sheet.game)
    out: Counter = Counter()
    for space in view:
        if space.startswith("rotation:") or space not in sheet.by_id:
            continue
        for t in view.get_tokens(space):
            if t in (OCCUPIED, MORE):
                continue
            pset.piece(t)  # every token the game shows has a piece (test_pieceset.py)
            out[layout.token_class(sheet.game, t)] += 1
    return out


def _build(game: str, seed: int, tmp_path):
    from vision.simulated.pathtraced.pieces import placed_pieces
    from vision.simulated.pathtraced.scene import PTSetup, scene_dict
    from vision.simulated.sessions import random_position

    sheet = grid_for(game).sheet
    view = random_position(game, seed, 20 + 7 * seed, None).view(Fidelity.KIND)
    pieces = placed_pieces(sheet, view, np.random.default_rng(seed))
    d = scene_dict(sheet, pieces, PTSetup(size=(64, 36), spp=1), tmp_path, seed, view)
    return sheet, view, pieces, d


@pytest.mark.parametrize("game", GAMES)
def test_every_token_has_its_piece_with_its_material(game, tmp_path):
    for seed in range(3):
        sheet, view, pieces, d = _build(game, seed, tmp_path)
        assert sum(_expected_tokens(sheet, view).values()) > 0, f"{game} seed {seed}: an empty position"
        got = Counter(layout.token_class(game, p.token) for p in pieces if not p.solid.furniture)
        assert got == _expected_tokens(sheet, view), f"{game} seed {seed}"
        for i, p in enumerate(pieces):
            shapes = {k: v for k, v in d.items() if k.startswith(f"p{i}") and not k[len(f'p{i}'):][:1].isdigit()}
            assert shapes, f"{game}: piece {i} ({p.token}) has no shapes"
            bodies = {k: v for k, v in shapes.items() if k != f"p{i}sticker"}
            if p.solid.furniture:  # DRIFT's repository block: wood
                assert {_kind(v["bsdf"]) for v in bodies.values()} == {("diffuse", None)}
                continue
            kinds = {_kind(v["bsdf"]) for v in bodies.values()}
            assert kinds <= _body_kinds(game, p.token), f"{game}: {p.token} is {kinds}"
            if p.solid.tag is not None:  # the tag's sticker, paper on the top face
                st = shapes[f"p{i}sticker"]
                assert _kind(st["bsdf"]) == ("diffuse", None)
                top = max(-v["p1"][2] for v in bodies.values() if v["type"] == "cylinder")
                assert st["to_world"].translation()[2] < -top
            else:
                assert game in ("anacund", "annelids"), f"{game}: {p.token} has no sticker"
            if game in ("anacund", "annihilation"):  # two-faced: the lower half the other face's colour
                low, high = (shapes[f"p{i}t{k}"]["bsdf"] for k in (0, 1))
                assert low != high
            if game == "annelids" and ":" in p.token:  # a tail: its dark band on the flat end
                assert f"p{i}end" in shapes


@pytest.mark.parametrize("game", GAMES)
def test_pieces_are_put_down_off_centre_within_their_space_and_apart(game):
    from vision.simulated.pathtraced.pieces import BAR_TURN_DEG, PILE_SLOP_MM, apart, meets
    from vision.simulated.pathtraced.pieces import placed_pieces
    from vision.simulated.sessions import random_position

    sheet = grid_for(game).sheet
    off = []
    for seed in range(6):
        view = random_position(game, seed, 20 + 7 * seed, None).view(Fidelity.KIND)
        pieces = placed_pieces(sheet, view, np.random.default_rng(seed))
        for p in pieces:
            s = p.solid
            assert p.span <= 0.15 * sheet.pitch + PILE_SLOP_MM + 1e-9
            d = np.array([s.x - p.home[0], s.y - p.home[1]])
            if s.shape == "box":  # along and across its edge, a few degrees askew
                (ax, ay), (bx, by) = next(sh.ends for sh in sheet.shapes if sh.kind == "edge"
                                          and math.hypot(sh.x - p.home[0], sh.y - p.home[1]) < 0.01)
                edge = math.atan2(by - ay, bx - ax)
                assert abs(math.remainder(s.angle - edge, math.pi)) <= math.radians(BAR_TURN_DEG) + 1e-9
                u = np.array([math.cos(edge), math.sin(edge)])
                d = np.array([d @ u, d @ [-u[1], u[0]]])
            assert np.all(np.abs(d) <= p.span + 1e-6), f"{game}: {p.token} {d} past {p.span}"
            off.append(float(np.abs(d).max()) / sheet.pitch)
        moved = [p for p in pieces if p.span > 0]
        piles = {(p.home, round(p.solid.z0, 3)) for p in pieces}
        assert len(piles) == len(pieces), f"{game}: two pieces at one height on one spot"
        for a in moved:
            for b in pieces:
                if b is a or not meets(a.solid, b.solid) or a.home == b.home:  # a pile stands on itself, a coin on its block
                    continue
                assert apart(a.solid, b.solid, 0.0), f"{game} seed {seed}: {a.token} at {a.home} touches {b.token}"
    assert max(off) > 0.08, f"{game}: the pieces are not put down off-centre"


def test_drift_ring_markers_where_the_rotations_put_them(tmp_path):
    from vision.sheets.annuli import rotations_of
    from vision.simulated.scene_pieces import annuli_for

    for seed in range(3):
        sheet, view, _, d = _build("drift", seed, tmp_path)
        annuli = annuli_for(sheet)
        rots = rotations_of(view)
        want = {tag: xy for ring in annuli.rings for tag, xy, _ in annuli.markers_at(ring, rots[ring.name])}
        got = {int(k[4:]): d[k]["to_world"].translation() for k in d if k.startswith("ring")}
        assert set(got) == set(want) and {45, 46, 47} <= set(want)  # each ring's marker (and its opposite one)
        for tag, (x, y) in want.items():
            assert math.hypot(got[tag][0] - x, got[tag][1] - y) < 1e-3
            assert -4.0 < got[tag][2] < 0.0  # on the paper, above the table


def test_glossy_stickers_are_coated(tmp_path):
    """``PTSetup.sticker = "glossy"``: every sticker (pieces' and DRIFT's ring markers) a low-roughness coat."""
    from vision.simulated.pathtraced.pieces import placed_pieces
    from vision.simulated.pathtraced.scene import PTSetup, scene_dict
    from vision.simulated.sessions import random_position

    sheet = grid_for("drift").sheet
    view = random_position("drift", 1, 30, None).view(Fidelity.KIND)
    pieces = placed_pieces(sheet, view, np.random.default_rng(1))
    d = scene_dict(sheet, pieces, PTSetup(size=(64, 36), spp=1, sticker="glossy"), tmp_path, 1, view)
    stickers = [v for k, v in d.items() if k.endswith("sticker") or k.startswith("ring")]
    assert len(stickers) == sum(p.solid.tag is not None for p in pieces) + 6
    assert {_kind(v["bsdf"]) for v in stickers} == {("roughplastic", None)}


def test_a_sheet_left_in_place_keeps_its_bend(tmp_path):
    """``sheet_seed`` (the bench's ``--sheet fixed``): two frames of other seeds lie on the same
    bent paper; without it each frame's paper is bent anew."""
    from vision.simulated.pathtraced.scene import PTSetup, scene_dict

    sheet = grid_for("annelids").sheet
    setup = PTSetup(size=(64, 36), spp=1)

    def mesh(seed, sheet_seed=None):
        d = scene_dict(sheet, [], setup, tmp_path, seed, None, sheet_seed)
        return open(d["sheet"]["filename"]).read()

    assert mesh(1, sheet_seed=999) == mesh(2, sheet_seed=999)
    assert mesh(1) != mesh(2)


def test_an_arm_reaches_in_with_the_ring_it_carries(tmp_path):
    """A filmed frame's hand (``scene_dict(hands=...)``): skin capsules from the fingertips back
    towards the shoulder beyond the nearest sheet edge, and the carried ring under the
    fingertips ``lift_mm`` above the board, in its metal, its sticker on top."""
    from vision.simulated.camera_model import Hand
    from vision.simulated.pathtraced.scene import PTSetup, scene_dict

    sheet = grid_for("gyges").sheet
    w, h = sheet.size
    hand = Hand((w / 2, h - 40.0), height_mm=70.0, holding=("2",), lift_mm=35.0)
    d = scene_dict(sheet, [], PTSetup(size=(64, 36), spp=1), tmp_path, 0, None, hands=(hand,))
    skin = {k: v for k, v in d.items() if k.startswith("arm0")}
    assert skin and {_kind(v["bsdf"]) for v in skin.values()} == {("roughplastic", None)}
    centres = np.array([v["center"] for v in skin.values() if v["type"] == "sphere"])
    # the fingertips round the piece, the forearm off beyond the near (bottom) edge, up in the air
    assert np.hypot(*(centres[:, :2] - hand.at).T).min() < 30
    assert centres[:, 1].max() > h + 200
    assert (centres[:, 2] < -hand.height_mm + 15).all()  # z grows into the table
    ring = [v for k, v in d.items() if k.startswith("p0t") and k[3:].isdigit()]  # its tiers
    assert len(ring) == 2 and {_kind(v["bsdf"]) for v in ring} == {("roughconductor", "Al")}
    assert ring[0]["p0"][2] == pytest.approx(-35.0)  # its base lift_mm above the board
    assert "p0sticker" in d


def test_a_filmed_piece_stays_where_it_was_put_down():
    """``placed_after``: from one view to the next a piece left on its space keeps its exact
    place (a move moves one piece, not every piece on the board); the piece newly put down gets
    a place of its own, clear of the others."""
    from vision.simulated.pathtraced.pieces import apart, placed_after, placed_pieces
    from vision.simulated.sessions import scripted_game

    from rules import get_game

    sheet = grid_for("gyges").sheet
    start, moves = scripted_game("gyges", 0, 3, get_game("gyges").default_setup())
    rng = np.random.default_rng(0)
    state = start
    before = placed_pieces(sheet, state.view(Fidelity.KIND), rng)
    for m in moves:
        state = state.successor(m)
        after = placed_after(before, sheet, state.view(Fidelity.KIND), rng)
        was = {(p.home, p.token): (p.solid.x, p.solid.y) for p in before}
        now = {(p.home, p.token): (p.solid.x, p.solid.y) for p in after}
        assert len(after) == len(before)  # Gygès: a move moves rings, never takes one off
        stayed = was.keys() & now.keys()
        assert len(stayed) >= len(after) - 2
        assert all(was[k] == now[k] for k in stayed)
        assert all(apart(a.solid, b.solid, 0.0) for i, a in enumerate(after) for b in after[i + 1:])
        before = after


def test_a_ring_lying_tilted_on_another():
    """A double or triple ring's upper rings tilted on its first (``lean_deg``): the first ring
    stays on the paper, the upper ones rest on its rim on one side and lift on the other; the
    same seed puts every piece where it put it without a lean."""
    import mitsuba as mi

    from rules import get_game
    from vision.simulated.pathtraced.pieces import piece_shapes, placed_pieces
    from vision.simulated.pathtraced.scene import _mi

    _mi()
    sheet = grid_for("gyges").sheet
    view = get_game("gyges").default_setup({}).view(Fidelity.KIND)
    plain = placed_pieces(sheet, view, np.random.default_rng(3))
    leaning = placed_pieces(sheet, view, np.random.default_rng(3), lean_deg=4.0)
    assert [(p.solid.x, p.solid.y, p.solid.tag_angle) for p in plain] == \
        [(p.solid.x, p.solid.y, p.solid.tag_angle) for p in leaning]
    assert all((p.lean_deg > 0) == (p.tiers > 1) and p.lean_deg <= 4.0 for p in leaning)
    for p, q in zip(plain, leaning):
        if p.tiers < 2:
            continue
        flat = piece_shapes(mi, sheet, p, 0, {"type": "diffuse"}, "matte", lambda x, y: 0.0)
        tilted = piece_shapes(mi, sheet, q, 0, {"type": "diffuse"}, "matte", lambda x, y: 0.0)
        assert tilted["p0t0"] == flat["p0t0"]  # the first ring is where it was
        axis = np.subtract(tilted["p0t1"]["p1"], tilted["p0t1"]["p0"])
        lean = math.degrees(math.acos(abs(axis[2]) / np.linalg.norm(axis)))
        assert lean == pytest.approx(q.lean_deg, abs=1e-6)
        # the top's rim: on the side the ring rests on, no lower than the flat top; opposite, lifted
        u = np.array([math.cos(q.lean_dir), math.sin(q.lean_dir), 0.0])
        top_flat, top = flat["p0top"]["to_world"], tilted["p0top"]["to_world"]
        rest = top @ mi.ScalarPoint3f(*u.tolist())
        lift = top @ mi.ScalarPoint3f(*(-u).tolist())
        flat_z = (top_flat @ mi.ScalarPoint3f(0, 0, 0))[2]
        assert lift[2] < rest[2] and flat_z - lift[2] > 1.8 * p.solid.radius * math.sin(math.radians(q.lean_deg))
