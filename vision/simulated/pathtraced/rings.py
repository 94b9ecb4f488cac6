"""Gygès's rings without stickers, path traced: the stepped ring the sticker-less reading was
decided on (:mod:`vision.pieces.rings`: a ring of height *n* is *n* tiers, each narrower than the
one below), turned as one piece of metal on a lathe, every tier's edge rounded.

The camera model draws a tier's rim as a darker band (``RIM_MM`` wide); here nothing is drawn:
the rim is a quarter-round of radius ``RIM_MM`` in brushed aluminium, and what the camera sees
there is what that curved metal mirrors of the room, against the flat top's mirror of the
ceiling. That is the physics the ring reader's learned lines are measured against (issue 32
item 4).
"""

from __future__ import annotations

import hashlib
import math
import os
from functools import lru_cache
from pathlib import Path

import numpy as np

from vision.pieces.rings import RIM_MM, TIERS

ARC_STEPS = 6  # facets along a rim's quarter-round (its normals are smooth: the facets do not show)
AROUND = 96  # facets round the ring


def profile(tiers: int) -> list[np.ndarray]:
    """The ring's half-section, as runs of (r, z, n_r, n_z): from the foot's outer edge up and
    in to the axis, each run smooth inside (a vertical side and the round above it; a flat top),
    a sharp corner between runs (a tier's foot on the top below)."""
    if not 1 <= tiers <= len(TIERS):
        raise ValueError(f"a Gygès ring has 1 to {len(TIERS)} tiers, got {tiers}")
    runs = []
    base = 0.0
    for k, (radius, top) in enumerate(TIERS[:tiers]):
        side = [(radius, base, 1.0, 0.0), (radius, top - RIM_MM, 1.0, 0.0)]
        arc = []
        for j in range(1, ARC_STEPS + 1):
            a = 0.5 * math.pi * j / ARC_STEPS  # 0: facing out, pi/2: facing up
            arc.append((radius - RIM_MM + RIM_MM * math.cos(a), top - RIM_MM + RIM_MM * math.sin(a),
                        math.cos(a), math.sin(a)))
        runs.append(np.array(side + arc))
        inner = TIERS[k + 1][0] if k + 1 < tiers else 0.0
        runs.append(np.array([(radius - RIM_MM, top, 0.0, 1.0), (inner, top, 0.0, 1.0)]))
        base = top
    return runs


def lathe(runs: list[np.ndarray], around: int = AROUND) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The runs turned about the z axis: vertex positions, unit normals (z up), triangles
    (0-based, counter-clockwise seen from outside: their normals point out)."""
    pos, nor, tri = [], [], []
    phi = np.linspace(0.0, 2 * math.pi, around, endpoint=False)
    c, s = np.cos(phi), np.sin(phi)
    n0 = 0
    for run in runs:
        m = len(run)
        r, z, nr, nz = (run[:, i][:, None] for i in range(4))
        pos.append(np.stack([r * c, r * s, np.broadcast_to(z, (m, around))], axis=-1).reshape(-1, 3))
        nor.append(np.stack([nr * c, nr * s, np.broadcast_to(nz, (m, around))], axis=-1).reshape(-1, 3))
        for i in range(m - 1):
            for j in range(around):
                a, b = n0 + i * around + j, n0 + i * around + (j + 1) % around
                a2, b2 = a + around, b + around
                if run[i, 0] > 0:  # at the axis a facet's two corners meet: drop it
                    tri.append((a, b, b2))
                if run[i + 1, 0] > 0:
                    tri.append((a, b2, a2))
        n0 += m * around
    return np.concatenate(pos), np.concatenate(nor), np.array(tri, np.int64)


@lru_cache(maxsize=None)
def _obj_text(tiers: int) -> str:
    """The OBJ text of a ring of ``tiers`` tiers (built once a process: a scene has twelve rings)."""
    pos, nor, tri = lathe(profile(tiers))
    pos = pos * [1.0, 1.0, -1.0]
    nor = nor * [1.0, 1.0, -1.0]
    tri = tri[:, ::-1] + 1  # the z flip mirrors the winding; OBJ counts from 1
    lines = [f"v {x:.4f} {y:.4f} {z:.4f}" for x, y, z in pos]
    lines += [f"vn {x:.5f} {y:.5f} {z:.5f}" for x, y, z in nor]
    lines += [f"f {a}//{a} {b}//{b} {c}//{c}" for a, b, c in tri]
    return "\n".join(lines) + "\n"


def ring_obj(tiers: int, workdir: Path) -> Path:
    """An OBJ of a ring of ``tiers`` tiers standing at the origin (z up is Mitsuba's -z here: the
    scene's table is z = 0 and heights are negative), in ``workdir`` under a name of its
    content (a ring's shape changed is never read from an older file)."""
    text = _obj_text(tiers)
    path = Path(workdir) / f"gyges-ring-{tiers}-{hashlib.sha1(text.encode()).hexdigest()[:10]}.obj"
    if not path.exists():
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(text)
        tmp.replace(path)  # two renders sharing a work directory never read half a file
    return path
