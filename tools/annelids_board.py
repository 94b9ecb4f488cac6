"""Generate ``rules/boards/annelids.json``: the Annelids board, a truncated square (4.8.8)
tiling of 12 × 12 octagons with 11 × 11 small squares between them.

    python3 tools/annelids_board.py            # rewrite rules/boards/annelids.json
    python3 tools/annelids_board.py --check    # exit 1 if the shipped file differs

The pieces of Annelids lie on the cells' **edges**, so the board's spaces are the 888 edges
(the rim included). Naming (columns ``a``–``l`` west → east, rows ``1``–``12`` south → north,
as Blue sees the board):

* ``c3ne``, ``c3nw``, ``c3se``, ``c3sw`` — the four diagonal sides of octagon c3 (each belongs
  to one octagon only: its other side is a small square or the board's rim);
* ``c3n`` — the side between octagon c3 and octagon c4 (or the rim, on row 12); ``c3e`` —
  between c3 and d3 (or the rim, on column l); ``c1s`` and ``a3w`` — the rim on row 1 and
  column a.

Every connector joins two edges that meet at a vertex; its ``label`` is that vertex's
position in millimetres, ``"x,y"`` (three edges meeting make three connectors with one label).
Each small square is a zone ``square c3d4`` (the square between octagons c3, d3, c4 and d4)
listing its four edges in order round the square (SW, SE, NE, NW sides), so sides 0/2 and 1/3
are opposite. A test checks the shipped file is exactly what this script writes.
"""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path

SIZE = 12
COLUMNS = "abcdefghijkl"
PITCH = 30.0  # mm between octagon centres
MARGIN = 15.0  # mm of plain border round the tiling
SIDE = PITCH / (1 + math.sqrt(2))  # every edge of a regular 4.8.8 tiling has this length
OUT = Path(__file__).resolve().parents[1] / "rules" / "boards" / "annelids.json"

# The eight sides of an octagon: name -> its two corners, as (dx, dy) in units of
# (half the side, half the pitch); y grows southwards on the printed board.
_H, _P = SIDE / 2, PITCH / 2
_SIDES = {
    "n": ((-_H, -_P), (_H, -_P)),
    "ne": ((_H, -_P), (_P, -_H)),
    "e": ((_P, -_H), (_P, _H)),
    "se": ((_P, _H), (_H, _P)),
    "s": ((_H, _P), (-_H, _P)),
    "sw": ((-_H, _P), (-_P, _H)),
    "w": ((-_P, _H), (-_P, -_H)),
    "nw": ((-_P, -_H), (-_H, -_P)),
}


def octagon(i: int, j: int) -> str:
    return f"{COLUMNS[i]}{j + 1}"


def centre(i: int, j: int) -> tuple[float, float]:
    height = SIZE * PITCH + 2 * MARGIN
    return MARGIN + _P + i * PITCH, height - (MARGIN + _P + j * PITCH)


def edge_name(i: int, j: int, side: str) -> str:
    """The canonical id of side ``side`` of octagon (i, j) (see the module docstring)."""
    if side == "s" and j > 0:
        return edge_name(i, j - 1, "n")
    if side == "w" and i > 0:
        return edge_name(i - 1, j, "e")
    return f"{octagon(i, j)}{side}"


def build() -> dict:
    size_mm = SIZE * PITCH + 2 * MARGIN
    edges: dict[str, tuple[str, str]] = {}  # id -> its two vertex labels
    mids: dict[str, tuple[float, float]] = {}
    for j in range(SIZE):
        for i in range(SIZE):
            cx, cy = centre(i, j)
            for side, ends in _SIDES.items():
                name = edge_name(i, j, side)
                pts = [(round(cx + dx, 1), round(cy + dy, 1)) for dx, dy in ends]
                labels = tuple(f"{x:.1f},{y:.1f}" for x, y in pts)
                if name in edges:
                    if set(edges[name]) != set(labels):
                        raise AssertionError(f"{name}: corners disagree")
                    continue
                edges[name] = labels
                mids[name] = ((pts[0][0] + pts[1][0]) / 2, (pts[0][1] + pts[1][1]) / 2)
    at: dict[str, list[str]] = {}
    for name, ends in edges.items():
        for v in ends:
            at.setdefault(v, []).append(name)
    connectors = []
    for v in sorted(at, key=lambda lab: (float(lab.split(",")[1]), float(lab.split(",")[0]))):
        names = at[v]
        if not 2 <= len(names) <= 3:
            raise AssertionError(f"vertex {v} joins {len(names)} edges")
        for a in range(len(names)):
            for b in range(a + 1, len(names)):
                connectors.append({"a": names[a], "b": names[b], "label": v})
    zones: dict[str, list[str]] = {}
    for j in range(SIZE - 1):
        for i in range(SIZE - 1):
            zones[f"square {octagon(i, j)}{octagon(i + 1, j + 1)}"] = [
                edge_name(i, j, "ne"), edge_name(i + 1, j, "nw"),
                edge_name(i + 1, j + 1, "sw"), edge_name(i, j + 1, "se"),
            ]
    spaces = [
        {"id": name, "x": round(mids[name][0], 2), "y": round(mids[name][1], 2), "kind": "edge"}
        for name in edges
    ]
    return {
        "name": "annelids",
        "width_mm": size_mm,
        "height_mm": size_mm,
        "description": (
            "Annelids: truncated square (4.8.8) tiling, 12 x 12 octagons (columns a-l west to east, "
            "rows 1-12 south to north as Blue sees it), 121 small squares. Spaces are the 888 cell "
            "edges (rim included); connectors join edges meeting at a vertex, labelled with the "
            "vertex's 'x,y' in mm; zone 'square c3d4' lists that small square's edges round it. "
            "Generated by tools/annelids_board.py."
        ),
        "spaces": spaces,
        "connectors": connectors,
        "zones": zones,
        "areas": [],
    }


def render() -> str:
    return json.dumps(build(), indent=1, ensure_ascii=False) + "\n"


def main(argv: list[str]) -> int:
    text = render()
    if "--check" in argv:
        same = OUT.exists() and OUT.read_text(encoding="utf-8") == text
        print(f"{OUT}: {'up to date' if same else 'DIFFERS from the generator'}")
        return 0 if same else 1
    OUT.write_text(text, encoding="utf-8")
    print(f"wrote {OUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
