"""What the empty board looks like (:class:`Calibration`): the darkest and brightest value at
every sample point, the light probes, and for colour-read games each piece colour learned
from known positions. Saved and loaded as a strict ``.npz`` file."""

from __future__ import annotations

import io
import json
import math
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from rules.strict import expect_keys, loads
from rules.view import View

from vision.sheets import layout

from .colour_model import paper_white
from .pose import Pose, pose_from_homography
from .samples import SampleGrid
from .sampling import SATURATED, colour_top, light_gains, probe_values, sample, sheet_image_at, warp_through


CALIBRATION_VERSION = 1


class CalibrationError(ValueError):
    """A calibration cannot be made, read or used; the message says which and why."""


@dataclass(frozen=True)
class ColourClass:
    name: str
    mean: np.ndarray  # (3,) BGR, in the reference frame's light
    tol: float
    headed: bool = False  # tokens carry a heading read from a dark end (``blue:N``)


@dataclass(frozen=True)
class Calibration:
    game: str
    mode: str  # "tags" or "colour"
    lo: np.ndarray  # (N_body, 3): the empty board's darkest value within ~1 mm of each body point
    hi: np.ndarray  # (N_body, 3): and its brightest
    tint: np.ndarray  # (N_body, 3): the empty board's colour cast there (each channel minus their mean)
    probe_ref: np.ndarray  # (P, 3): the empty board's paper at each probe
    classes: tuple[ColourClass, ...] = ()
    # the exposure compensation the camera was asked for while the board was learned (stops;
    # vision.camera.exposure): asked again when the service starts, so the paper is as learned
    exposure_ev: float = 0.0

    @classmethod
    def from_empty(cls, grid: SampleGrid, frames: Iterable[tuple[np.ndarray, np.ndarray]],
                   mode: str | None = None) -> "Calibration":
        """Learn the empty board from ``(frame, H)`` pairs (a few still frames, averaged; ``H`` a
        homography or a :class:`~vision.read.pose.Pose`, whose lens the frame is seen through)."""
        frames = list(frames)
        warped = [warp_through(f, H, grid.sheet).astype(np.float32) for f, H in frames]
        if not warped:
            raise CalibrationError("calibration needs at least one frame of the empty board")
        ref = np.mean(warped, axis=0)
        kernel = np.ones((5, 5), np.uint8)
        lo, hi = cv2.erode(ref, kernel), cv2.dilate(ref, kernel)
        probe = np.mean([probe_values(grid, f, H) for f, H in frames], axis=0)
        if (probe.max(axis=1) >= SATURATED).mean() > 0.01:
            raise CalibrationError("the paper is clipped white in the calibration frames: lower the exposure")
        if len(grid.probes) < 4 or probe.min() < 20:
            raise CalibrationError("the empty board's paper is too dark or hidden: light the board and clear it")
        mode = mode or layout.DEFAULT_MODE.get(grid.sheet.game, "tags")
        if mode not in ("tags", "colour"):
            raise CalibrationError(f"reading mode must be 'tags' or 'colour', got {mode!r}")
        mid = sheet_image_at(cv2.GaussianBlur(ref, (0, 0), 1.0), grid.body.mm)
        tint = mid - mid.mean(axis=1, keepdims=True)
        return cls(grid.sheet.game, mode, sheet_image_at(lo, grid.body.mm), sheet_image_at(hi, grid.body.mm), tint, probe)

    def learn_colours(self, grid: SampleGrid, shots: Iterable[tuple[np.ndarray, np.ndarray, View]]) -> "Calibration":
        """Learn piece colours from ``(frame, H, view)``: frames of known positions (the
        start position, or a layout showing every kind of piece)."""
        pix: dict[str, list[np.ndarray]] = {}
        headed: set[str] = set()
        ref = np.concatenate([grid.sheet.marker_corners()[i] for i in layout.CORNER_IDS])
        white = paper_white(self.probe_ref)
        for frame, H, view in shots:
            # The colour is on the pieces' top faces: the pose behind the lock says where.
            if not isinstance(H, Pose):
                H = pose_from_homography(H, ref, (frame.shape[1], frame.shape[0]))
            gains, _, _ = light_gains(grid, self, frame, H)
            # Where the top face is seen, or (a flat set) the board's plane: per piece, the look
            # whose pixels agree best is its top.
            looks = [sample(frame, H, grid.core.mm, colour_top(self.game)), sample(frame, H, grid.core.mm)]
            for space, tokens in view.items():
                i = grid.index.get(space)
                if i is None or grid.is_area[i] or len(tokens) != 1:
                    continue
                name = layout.token_class(self.game, tokens[0])
                headed |= {name} if ":" in tokens[0] else set()
                core = min((c[grid.core.of(i)] for c in looks), key=lambda px: float(px.std(axis=0).sum()))
                # Balanced to the paper next to it, stored against the board's paper as a whole
                # (the reader balances each frame's pixels the same way: vision.read.colour_model).
                paper = self.probe_ref[grid.probe_of[i]].mean(axis=0)
                pix.setdefault(name, []).append(core / (gains[i] * paper) * white)
        if not pix:
            raise CalibrationError("no pieces in the calibration positions: lay out every kind of piece")
        names = sorted(pix)
        means = {n: np.median(np.concatenate(pix[n]), axis=0) for n in names}
        classes = []
        for name in names:
            d = np.linalg.norm(np.concatenate(pix[name]) - means[name], axis=1)
            # Wide enough for the light's play on this colour, never reaching halfway to another.
            gap = min((float(np.linalg.norm(means[name] - means[o])) for o in names if o != name), default=1e9)
            tol = float(np.clip(2.5 * np.percentile(d, 75), 20.0, 0.45 * gap))
            classes.append(ColourClass(name, means[name].astype(np.float32), tol, name in headed))
        return Calibration(self.game, self.mode, self.lo, self.hi, self.tint, self.probe_ref, tuple(classes),
                           self.exposure_ev)

    # -- files ----------------------------------------------------------------------------

    def save(self, path: str | Path) -> None:
        meta = {"version": CALIBRATION_VERSION, "game": self.game, "mode": self.mode, "exposure_ev": self.exposure_ev,
                "classes": [{"name": c.name, "mean": c.mean.tolist(), "tol": c.tol, "headed": c.headed}
                            for c in self.classes]}
        buf = io.BytesIO()
        np.savez_compressed(buf, lo=self.lo.astype(np.uint8), hi=self.hi.astype(np.uint8),
                            tint=self.tint.astype(np.float32), probe_ref=self.probe_ref.astype(np.float32),
                            meta=np.array(json.dumps(meta)))
        Path(path).write_bytes(buf.getvalue())

    @classmethod
    def load(cls, path: str | Path, grid: SampleGrid) -> "Calibration":
        where = str(path)
        try:
            with np.load(where, allow_pickle=False) as z:
                # The arrays and the meta's keys are checked like every input file (rules/strict.py).
                expect_keys(dict.fromkeys(z.files), required=("lo", "hi", "tint", "probe_ref", "meta"), where=where,
                            error=CalibrationError)
                meta = loads(str(z["meta"]), where=f"{where}: meta", error=CalibrationError)
                expect_keys(meta, required=("version", "game", "mode", "classes"), optional=("exposure_ev",),
                            where=where, path="meta", error=CalibrationError)
                for i, c in enumerate(meta["classes"] if isinstance(meta["classes"], list) else ()):
                    expect_keys(c, required=("name", "mean", "tol", "headed"), where=where, path=f"meta.classes[{i}]",
                                error=CalibrationError)
                lo, hi, probe = z["lo"].astype(np.float32), z["hi"].astype(np.float32), z["probe_ref"]
                tint = z["tint"].astype(np.float32)
        except OSError as exc:
            raise CalibrationError(f"{where}: cannot read the calibration: {exc}") from None
        except CalibrationError:
            raise  # already one line naming the key
        except (KeyError, ValueError, json.JSONDecodeError) as exc:
            raise CalibrationError(f"{where}: not a tableref calibration file ({exc})") from None
        if meta.get("version") != CALIBRATION_VERSION:
            raise CalibrationError(f"{where}: calibration version {meta.get('version')!r}, expected {CALIBRATION_VERSION}")
        if meta.get("game") != grid.sheet.game or len(lo) != len(grid.body.mm) or len(probe) != len(grid.probes):
            raise CalibrationError(f"{where}: made for another board ({meta.get('game')!r}); calibrate again")
        classes = tuple(ColourClass(c["name"], np.array(c["mean"], np.float32), float(c["tol"]), bool(c["headed"]))
                        for c in meta.get("classes", []))
        ev = meta.get("exposure_ev", 0.0)  # (a file from before it was kept: the camera's own exposure)
        if isinstance(ev, bool) or not isinstance(ev, (int, float)) or not math.isfinite(ev):
            raise CalibrationError(f"{where}: 'meta.exposure_ev' must be a number of stops, not {ev!r}")
        return cls(meta["game"], meta["mode"], lo, hi, tint, probe, classes, float(ev))
