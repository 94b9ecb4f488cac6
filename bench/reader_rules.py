"""The reader's ink, shadow and marker rules, measured on path-traced frames (issue 32, item 3).

    python bench/reader_rules.py                                  # the committed frames (tests/vision/pathtraced)
    python bench/reader_rules.py --frames /tmp/pt/export          # frames bench/vision_pathtraced.py --export wrote

Three of the reader's rules decide whether what darkens a space is a shadow or something of its
own (``vision/readers/occlusion.py``; docs/vision-rules.md):

* ``INK_LEVEL`` 0.3 — "a sticker's ink is darker than any shadow": a point under 0.3 of the
  empty board's own brightness (the light model's, after the frame's light is matched) is ink.
* ``Occlusion.shadow_max`` 0.95 — a point darker than the board but above this is not shadow-like.
* ``INK_RANGE`` 0.35 — a shadow darkens evenly: the 10th and 90th percentile levels of what is
  foreign on a space lie closer than this; a sticker's ink and white lie further apart.

Each frame is read as the bench reads it (a calibration on its row's empty-board exposures, a
fresh lock); the levels the reader computed for every body point (``Reader._level_pt``) are then
sorted by the frame's truth: the points of empty spaces not behind a piece (paper, lit or in a
neighbour's shadow) and the points of spaces with a tagged piece whose sticker is on top. Printed:
the deepest level an empty space's paper fell to and how many of its points fell under
``INK_LEVEL``; the spread of the darkened points on empty spaces; the share of a sticker's
points under ``INK_LEVEL`` (the rule wants ``INK_MIN`` 0.1 of them). Colour-read games have no
stickers; for them, each piece's share of its own colour in its core at its plainest look
(``CLASS_MIN`` 0.75 wants that much) and the most any other colour took there (``OTHER_MAX``
0.05 allows that much), ``vision/readers/colour_rules.py``.

Also measured: what shows of each space foreign and not shadow-like, single pieces against empty
spaces (``OCCUPIED_MIN`` 0.6 names an unread piece "occupied" on that much: no empty space may
come near it); and DRIFT's ring markers — the grey contrast at each ring's markers and at the
plain step positions (``CONTRAST_MIN`` 0.12: a marker is looked for over it), and a plain step's
level against its brighter neighbour (``PAPER_LEVEL`` 0.85), ``vision/readers/drift_reader.py``;
and the level of DRIFT's silver coins' faces (DRIFT kept ``shadow_max`` at 0.85 under the other
games' 0.95 until the tenth session for them: "a silver coin is as grey as a light shadow").
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import cv2  # noqa: E402
import numpy as np  # noqa: E402

from rules import Fidelity, get_game  # noqa: E402
from rules.view import View  # noqa: E402
from vision.read.calibration import calibrate, colour_layout  # noqa: E402
from vision.read.lock import BoardLock  # noqa: E402
from vision.read.board_lens import lens_from_board  # noqa: E402
from vision.readers.for_game import grid_for, reader_for  # noqa: E402
from vision.readers.colour_rules import CLASS_MIN, OTHER_MAX  # noqa: E402
import vision.readers.reader as reader_module  # noqa: E402
from vision.read.sampling import sample  # noqa: E402
from vision.readers.reader import LIGHT_SPREAD, SHADOW_SPREAD  # noqa: E402
from vision.readers.drift_reader import CONTRAST_MIN, PAPER_LEVEL, DriftReader, _TurnedReader  # noqa: E402
from vision.readers.occlusion import EMPTY_MAX, INK_LEVEL, INK_MIN, INK_RANGE, OCCUPIED_MIN, VISIBLE_MIN, Occlusion  # noqa: E402
from vision.sheets.layout import DEFAULT_MODE, Sheet  # noqa: E402

LIGHT_SHADOW = (0.85, _TurnedReader.shadow_max)  # a light shadow's levels: where DRIFT's silver coins were said to lie
COMMITTED = Path(__file__).resolve().parent.parent / "tests" / "vision" / "pathtraced"
DARKENED = 0.97  # a point this far under the board's own level is darkened (the light model's noise is ~2 %)


def row_calibration(directory: Path, game: str, row: str):
    """An exported row's grid, calibration and lens: its empty-board exposures (and a colour
    game's layout), as the bench calibrated it — a barrel measured from the board's printed
    lines as the set-up page does (None through a straight lens)."""
    grid = grid_for(Sheet.for_board(get_game(game).board()))
    empty = [cv2.imread(str(p)) for p in sorted(directory.glob(f"{game}-{row}-empty*.jpg"))]
    lens = lens_from_board(grid.sheet, empty).lens
    mode = DEFAULT_MODE.get(game, "tags")
    layout = directory / f"{game}-{row}-layout.jpg"
    shots = [(cv2.imread(str(layout)), colour_layout(grid.sheet))] if mode == "colour" and layout.exists() else []
    return grid, calibrate(grid, empty, mode=mode, shots=shots, lens=lens), lens


def row_reader(directory: Path, game: str, row: str):
    grid, cal, lens = row_calibration(directory, game, row)
    return grid, reader_for(grid, cal, Fidelity.KIND, lens=lens)


def measure(grid, reader, frame: np.ndarray, truth: View, pieces: list[dict] = ()) -> dict[str, list]:
    """The levels of one frame's body points, sorted by its truth."""
    grey = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
    lock = BoardLock(grid.sheet, lens=reader.lens)
    lock.update(grey)
    status = lock.update(grey)
    out: dict[str, list] = defaultdict(list)
    if not status.readable:
        return out
    looks: list[tuple[np.ndarray, np.ndarray]] = []  # a colour reader's looks: (busy spaces, shares)
    settled: list[np.ndarray] = []  # the foreign points the occupied/empty judgement was made on
    settle = Occlusion._settle

    def recorded_settle(self, pose, body_px, foreign_pt, *a, **kw):
        settled.append(foreign_pt.copy())
        return settle(self, pose, body_px, foreign_pt, *a, **kw)

    Occlusion._settle = recorded_settle  # noqa: SLF001 - measured, then put back
    lights: list[tuple[np.ndarray, np.ndarray]] = []  # each judgement of the light: (spread, harsh) per space
    judge_light = reader_module.light_gains

    def recorded_light(*a, **kw):
        gains, spread, harsh = judge_light(*a, **kw)
        lights.append((spread.copy(), harsh.copy()))
        return gains, spread, harsh

    reader_module.light_gains = recorded_light
    classify = getattr(reader, "_classify", None)
    if classify is not None:
        def recorded(frame_, H_, busy, *a, **kw):
            look = classify(frame_, H_, busy, *a, **kw)
            looks.append((np.asarray(busy).copy(), look.shares.copy()))
            return look

        reader._classify = recorded  # noqa: SLF001 - measured, then put back
    try:
        reader.read(frame, status.H)
    finally:
        Occlusion._settle = settle
        reader_module.light_gains = judge_light
        if classify is not None:
            del reader._classify
    drift = isinstance(reader, DriftReader)
    if drift:
        out.update(marker_contrast(reader, frame, status.H, truth, list(pieces)))
        reader = next(reversed(reader._readers.values()))  # noqa: SLF001 - the rings' rotation read, its spaces
        grid = reader.grid
    level = reader._level_pt  # noqa: SLF001 - what the reader judged by, measured here
    if lights:  # the light as the read last judged it (each space at its calmest judgement)
        spread = np.minimum.reduce([sp for sp, _ in lights[-2:]])
        harsh = np.minimum.reduce([h for _, h in lights[-2:]])
        out["spread"].extend(spread[~grid.is_area].tolist())
        out["harsh"].extend(harsh[~grid.is_area].tolist())
        bare = np.array([not truth.get_tokens(sp.id) for sp in grid.spaces]) & ~grid.is_area
        out["bare_over"].append(int(((harsh > LIGHT_SPREAD) | (spread > SHADOW_SPREAD))[bare].sum()))
    if drift:  # DRIFT's silver coins, said to be as grey as a light shadow: their faces' level
        for p in pieces:
            if p.get("token") == "silver":
                d = np.hypot(grid.body.mm[:, 0] - p["x"], grid.body.mm[:, 1] - p["y"])
                if (d <= 7.0).sum() >= 10:
                    out["silver_face"].append(float(np.median(level[d <= 7.0])))
    tokens = {sp: list(truth.get_tokens(sp)) for sp in truth if truth.get_tokens(sp)}
    solid = reader._solids(reader._pose, tokens)  # noqa: SLF001 - the truth's pieces, as the reader places them
    tagged = DEFAULT_MODE.get(grid.sheet.game, "tags") == "tags"
    for i, s in enumerate(grid.spaces):
        if grid.is_area[i]:
            continue
        sl = grid.body.of(i)
        lv = level[sl]
        if s.id not in tokens:
            seen = ~reader._hidden(i, reader._body_px, solid)  # noqa: SLF001
            paper = lv[seen]
            if len(paper) == 0:
                continue
            out["paper"].append(paper)
            dark = paper[paper < DARKENED]
            if len(dark) > EMPTY_MAX * len(paper):  # darkened enough to be judged at all
                out["shadow_spread"].append(float(np.percentile(dark, 90) - np.percentile(dark, 10)))
        elif tagged and len(tokens[s.id]) == 1:
            out["sticker_ink"].append(float((lv <= INK_LEVEL).mean()))
        if settled and (s.id not in tokens or len(tokens[s.id]) == 1):
            seen = ~reader._hidden(i, reader._body_px, [p for p in solid if p[0] != i])  # noqa: SLF001
            if seen.sum() >= VISIBLE_MIN * len(seen):
                # what shows of it foreign and not shadow-like: a piece's evidence (OCCUPIED_MIN)
                plain = (settled[-1][sl] & ~reader._shadow_pt[sl])[seen]  # noqa: SLF001
                out["piece_foreign" if s.id in tokens else "empty_foreign"].append(float(plain.mean()))
    if looks:
        names = [c.name for c in reader._hues]  # noqa: SLF001
        index = {n: k for k, n in enumerate(names)}
        best: dict[int, tuple[float, float]] = {}  # space → (its colour's share, the most of another) at its plainest look
        for busy, shares in looks:
            for j, i in enumerate(busy):
                toks = tokens.get(grid.spaces[int(i)].id)
                if not toks or len(toks) != 1 or toks[0].split(":")[0] not in index:
                    continue
                k = index[toks[0].split(":")[0]]
                own, other = float(shares[j, k]), float(np.delete(shares[j], k).max(initial=0.0))
                if int(i) not in best or own - 2 * other > best[int(i)][0] - 2 * best[int(i)][1]:
                    best[int(i)] = (own, other)
        out["colour_own"].extend(v[0] for v in best.values())
        out["colour_other"].extend(v[1] for v in best.values())
    return out


def marker_contrast(reader: DriftReader, frame: np.ndarray, H: np.ndarray, truth: View,
                    pieces: list[dict]) -> dict[str, list]:
    """DRIFT's ring markers against the board at the rings' step positions: the grey contrast
    (spread over mean) the reader looks at a step position for (``CONTRAST_MIN``), at each ring's
    markers (the truth's rotation) and at the other step positions where the board shows plain
    (no piece within 30 mm); and there, each step position's level against its brighter
    neighbour (``PAPER_LEVEL``: a plain step stands at least that bright)."""
    grey = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
    pose = reader._base.pose(frame, H)  # noqa: SLF001
    vals = sample(grey, pose, reader._candidate_pts).reshape(-1, reader._disk_n)  # noqa: SLF001
    contrast = vals.std(axis=1) / np.maximum(vals.mean(axis=1), 1.0)
    level = vals.mean(axis=1)
    placed = np.array([(p["x"], p["y"]) for p in pieces if p.get("token")] or [(1e9, 1e9)], np.float64)
    out: dict[str, list] = defaultdict(list)
    start = 0
    for ring, cands in zip(reader.annuli.rings, reader._candidates):  # noqa: SLF001
        mine, lv = contrast[start:start + ring.n], level[start:start + ring.n]
        start += ring.n
        r = int(truth.get_tokens(f"rotation:{ring.name}")[0])
        at = {r % ring.n} if ring.opposite_tag is None else {r % ring.n, (r + ring.n // 2) % ring.n}
        ratio = lv / np.maximum(np.maximum(np.roll(lv, 1), np.roll(lv, -1)), 1.0)
        for k in range(ring.n):
            near = np.hypot(*(placed - cands[k]).T).min() < 30.0
            if k in at and not near:
                out["marker_contrast"].append(float(mine[k]))
            elif k not in at and k - 1 not in at and (k + 1) % ring.n not in at and not near:
                out["plain_contrast"].append(float(mine[k]))
                out["plain_level"].append(float(ratio[k]))
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--frames", default=str(COMMITTED), help="a directory of exported frames (JPEG + JSON truth)")
    args = ap.parse_args(argv)
    cv2.setNumThreads(1)
    directory = Path(args.frames)
    rows: dict[tuple[str, str], list[Path]] = defaultdict(list)
    for p in sorted(directory.glob("*.json")):
        game, row, _ = p.stem.split("-")
        rows[(game, row)].append(p)
    if not rows:
        print(f"{directory}: no frames (JPEG + JSON truth, as bench/vision_pathtraced.py --export writes them)")
        return 1
    print(f"rules: INK_LEVEL {INK_LEVEL}, INK_MIN {INK_MIN}, INK_RANGE {INK_RANGE} (vision/readers/occlusion.py)")
    print(f"{'game':<13}{'row':<9}{'frames':>7}{'paper pts':>10}{'deepest':>9}{'p0.1':>7}"
          f"{'≤INK':>6}{'spread p95':>11}{'max':>6}{'stickers':>9}{'ink p5':>7}{'<MIN':>5}")
    worst_paper, worst_spread, worst_ink = 1.0, 0.0, 1.0
    pooled: dict[str, list[float]] = defaultdict(list)
    occupied: dict[str, str] = {}
    for (game, row), paths in sorted(rows.items()):
        grid, reader = row_reader(directory, game, row)
        got: dict[str, list] = defaultdict(list)
        for p in paths:
            data = json.loads(p.read_text())
            truth = View(data["view"])
            for k, v in measure(grid, reader, cv2.imread(str(p.with_suffix(".jpg"))), truth, data.get("pieces", [])).items():
                got[k].extend(v)
        paper = np.concatenate(got["paper"]) if got["paper"] else np.ones(1)
        spread = np.array(got["shadow_spread"] or [0.0])
        ink = np.array(got["sticker_ink"] or [np.nan])
        worst_paper = min(worst_paper, float(paper.min()))
        worst_spread = max(worst_spread, float(spread.max()))
        if got["sticker_ink"]:
            worst_ink = min(worst_ink, float(np.nanmin(ink)))
        for k, v in got.items():
            pooled[k].extend(v)
        if got["piece_foreign"]:
            fg, ef = np.array(got["piece_foreign"]), np.array(got["empty_foreign"] or [0.0])
            occupied[game] = occupied.get(game, "") + f" {row}: pieces p5 {np.percentile(fg, 5):.2f}, empty max {ef.max():.2f};"
        stickers = f"{len(got['sticker_ink']):>9}{np.nanpercentile(ink, 5):>7.2f}{int((ink < INK_MIN).sum()):>5}" \
            if got["sticker_ink"] else f"{'—':>9}{'':>7}{'':>5}"
        print(f"{game:<13}{row:<9}{len(paths):>7}{len(paper):>10}{paper.min():>9.2f}{np.percentile(paper, 0.1):>7.2f}"
              f"{int((paper <= INK_LEVEL).sum()):>6}{np.percentile(spread, 95):>11.2f}{spread.max():>6.2f}{stickers}",
              flush=True)
    if pooled["colour_own"]:
        own, other = np.array(pooled["colour_own"]), np.array(pooled["colour_other"])
        print(f"colour-read pieces: {len(own)}; their colour's share of the core at the plainest look: "
              f"min {own.min():.2f}, p5 {np.percentile(own, 5):.2f}, under CLASS_MIN {CLASS_MIN}: {int((own < CLASS_MIN).sum())}; "
              f"another colour's: p95 {np.percentile(other, 95):.2f}, max {other.max():.2f}, "
              f"over OTHER_MAX {OTHER_MAX}: {int((other > OTHER_MAX).sum())}")
    if pooled["piece_foreign"]:
        fg, ef = np.array(pooled["piece_foreign"]), np.array(pooled["empty_foreign"] or [0.0])
        print(f"what shows of a space (at least VISIBLE_MIN {VISIBLE_MIN} of it) foreign and not shadow-like: "
              f"{len(fg)} single pieces p5 {np.percentile(fg, 5):.2f}, median {np.median(fg):.2f}; "
              f"{len(ef)} empty spaces max {ef.max():.2f}, p99.9 {np.percentile(ef, 99.9):.2f} (OCCUPIED_MIN {OCCUPIED_MIN}: "
              f"{int((ef >= OCCUPIED_MIN).sum())} empty at or over)")
        for game, text in occupied.items():
            print(f"  {game}:{text}")
    if pooled["spread"]:
        sp, hs = np.array(pooled["spread"]), np.array(pooled["harsh"])
        print(f"the light round each space, calm frames ({len(sp)} spaces): disturbed probes p99 {np.percentile(sp, 99):.2f}, "
              f"max {sp.max():.2f} (SHADOW_SPREAD {SHADOW_SPREAD}: {int((sp > SHADOW_SPREAD).sum())} over); not only "
              f"darkened p99 {np.percentile(hs, 99):.2f}, max {hs.max():.2f} (LIGHT_SPREAD {LIGHT_SPREAD}: "
              f"{int((hs > LIGHT_SPREAD).sum())} over); over either on an empty space: {int(sum(pooled['bare_over']))}")
    if pooled["marker_contrast"]:
        mk, pc, pl = (np.array(pooled[k]) for k in ("marker_contrast", "plain_contrast", "plain_level"))
        print(f"DRIFT ring markers in view: {len(mk)}; their contrast min {mk.min():.2f}, p5 {np.percentile(mk, 5):.2f} "
              f"(CONTRAST_MIN {CONTRAST_MIN}: {int((mk < CONTRAST_MIN).sum())} under); plain step positions: {len(pc)}, "
              f"contrast p95 {np.percentile(pc, 95):.2f}, max {pc.max():.2f} ({int((pc >= CONTRAST_MIN).sum())} at or over "
              f"CONTRAST_MIN: looked at); level against the brighter neighbour min {pl.min():.2f}, p1 {np.percentile(pl, 1):.2f} "
              f"(PAPER_LEVEL {PAPER_LEVEL}: {int((pl < PAPER_LEVEL).sum())} under)")
    if pooled["silver_face"]:
        sf = np.array(pooled["silver_face"])
        lo, hi = LIGHT_SHADOW
        print(f"DRIFT silver coins: {len(sf)}; their face's median level min {sf.min():.2f}, median {np.median(sf):.2f}, "
              f"max {sf.max():.2f} ({int(((sf >= lo) & (sf < hi)).sum())} as grey as a light shadow, {lo}-{hi})")
    print(f"deepest paper anywhere {worst_paper:.2f} (INK_LEVEL {INK_LEVEL}: "
          f"{'confirmed' if worst_paper > INK_LEVEL else 'a shadow reaches ink'}); widest shadow spread "
          f"{worst_spread:.2f} (INK_RANGE {INK_RANGE}: {'confirmed' if worst_spread < INK_RANGE else 'exceeded'}); "
          f"least inked sticker {worst_ink:.2f} (INK_MIN {INK_MIN})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
