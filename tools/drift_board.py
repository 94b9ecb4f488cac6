"""Generate ``rules/boards/drift.json``: the Annuli board of DRIFT (reference counts).

    python3 tools/drift_board.py            # rewrite rules/boards/drift.json
    python3 tools/drift_board.py --check    # exit 1 if the shipped file differs

The real board's counts were only in the rule text's lost pictures; this is the reference
board of issue 5. Concentric rings, from the outside in:

* 6 **outcrops** (``circle triangle square pentagon hexagon star``, clockwise from 12 o'clock);
  not spaces: a piece on an outer-river arrow next to one may cross to the inner land space
  with the same marker;
* **outer river**, 24 arrows ``OR0``–``OR23``, flows clockwise;
* **outer land**, 24 spaces ``O0``–``O23``; every fourth (``O0 O4 … O20``) is the home across
  the outer river from an outcrop;
* **middle river**, 18 arrows ``MR0``–``MR17``, flows counter-clockwise;
* **middle land**, 18 spaces ``M0``–``M17``;
* **inner river**, 12 arrows ``IR0``–``IR11``, flows clockwise;
* **inner land**, 12 spaces ``I0``–``I11``; ``I0 I2 … I10`` carry the six markers.

Angles are degrees clockwise from 12 o'clock. Every ring is a list of angular sectors; a land
space and a river arrow are adjacent while their sectors overlap, which changes as the river
turns. Arrow sectors are given at rotation 0; a river turned k steps has every arrow moved k
arrow-lengths in its flow direction. River arrows are named by the arrow printed on the ring,
so a piece riding an arrow keeps its space id when the river turns.

Besides the playable spaces the file has a ``repository`` space per home (``repo-circle``: the
coins deposited on that home's repository) and a ``rotation`` space per river
(``rotation:outer``: the marker on the ring, read as the rotation step). The ``annuli`` key
holds the rings; ``rules/games/drift_geometry.py`` reads it. A test checks the shipped file is
exactly what this script writes.
"""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path

OUT = Path(__file__).resolve().parents[1] / "rules" / "boards" / "drift.json"
MARKERS = ("circle", "triangle", "square", "pentagon", "hexagon", "star")
SIZE = 640.0
CENTRE = SIZE / 2
RADIUS = {"outcrops": 300, "outer-river": 268, "outer": 232, "middle-river": 194, "middle": 156,
          "inner-river": 118, "inner": 78}
# (ring, prefix, count, first sector's start): land sectors are centred on multiples of their
# width, arrows start on them, so every arrow straddles two spaces of a ring of its own count.
LAND = (("outer", "O", 24), ("middle", "M", 18), ("inner", "I", 12))
RIVERS = (("outer", "OR", 24, "clockwise", "outcrops", "outer"),
          ("middle", "MR", 18, "counter-clockwise", "outer", "middle"),
          ("inner", "IR", 12, "clockwise", "middle", "inner"))
HOME_EVERY = 4  # outer land: every fourth space is a home


def point(angle: float, radius: float) -> tuple[float, float]:
    a = math.radians(angle)
    return round(CENTRE + radius * math.sin(a), 1), round(CENTRE - radius * math.cos(a), 1)


def build() -> dict:
    spaces: list[dict] = []
    connectors: list[dict] = []
    zones: dict[str, list[str]] = {}
    annuli: dict = {"markers": list(MARKERS), "land": [], "rivers": [], "outcrops": [],
                    "homes": {}, "marker_spaces": {}, "repositories": {}}
    for ring, prefix, n in LAND:
        width = 360 / n
        ids = [f"{prefix}{j}" for j in range(n)]
        sectors = [[round(j * width - width / 2, 3), round(j * width + width / 2, 3)] for j in range(n)]
        for j, sid in enumerate(ids):
            home = ring == "outer" and j % HOME_EVERY == 0
            x, y = point(j * width, RADIUS[ring])
            spaces.append({"id": sid, "x": x, "y": y, "kind": "home" if home else "land"})
            connectors.append({"a": sid, "b": ids[(j + 1) % n], "label": "land"})
        zones[f"{ring}-land"] = ids
        annuli["land"].append({"ring": ring, "spaces": ids, "sectors": sectors})
    for name, prefix, n, flow, outside, inside in RIVERS:
        width = 360 / n
        ids = [f"{prefix}{k}" for k in range(n)]
        for k, sid in enumerate(ids):
            x, y = point(k * width + width / 2, RADIUS[f"{name}-river"])
            spaces.append({"id": sid, "x": x, "y": y, "kind": "arrow"})
        zones[f"{name}-river"] = ids
        rot = f"rotation:{name}"
        x, y = point(0, RADIUS[f"{name}-river"] + 14)
        spaces.append({"id": rot, "x": x, "y": y, "kind": "rotation"})
        annuli["rivers"].append({
            "ring": name, "flow": flow, "outside": outside, "inside": inside, "arrows": ids,
            "sectors": [[round(k * width, 3), round((k + 1) * width, 3)] for k in range(n)],
            "rotation_space": rot,
        })
    outer_n, inner_n = LAND[0][2], LAND[2][2]
    for m, marker in enumerate(MARKERS):
        home = f"O{m * HOME_EVERY}"
        angle = m * 360 / len(MARKERS)
        half = 360 / outer_n / 2
        annuli["outcrops"].append({"marker": marker, "sector": [round(angle - half, 3), round(angle + half, 3)]})
        annuli["homes"][marker] = home
        annuli["marker_spaces"][marker] = f"I{m * inner_n // len(MARKERS)}"
        repo = f"repo-{marker}"
        annuli["repositories"][marker] = repo
        x, y = point(angle, RADIUS["outer"] + 20)
        spaces.append({"id": repo, "x": x, "y": y, "kind": "repository"})
        zones[f"home:{marker}"] = [home]
        zones[f"marker:{marker}"] = [annuli["marker_spaces"][marker]]
    zones["homes"] = [annuli["homes"][m] for m in MARKERS]
    return {"name": "drift", "width_mm": SIZE, "height_mm": SIZE, "spaces": spaces,
            "connectors": connectors, "zones": zones, "areas": [], "annuli": annuli}


def render() -> str:
    return json.dumps(build(), indent=1) + "\n"


def main(argv: list[str]) -> int:
    text = render()
    if "--check" in argv:
        same = OUT.exists() and OUT.read_text(encoding="utf-8") == text
        print("rules/boards/drift.json is " + ("up to date" if same else "out of date: run tools/drift_board.py"))
        return 0 if same else 1
    OUT.write_text(text, encoding="utf-8")
    print(f"wrote {OUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
