"""Filmed games on path-traced video (issue 32): CameraSource → stabiliser → referee.

    python bench/pathtraced_film.py --game gyges --tilts 25 --fills 0.6 --moves 3
    python bench/pathtraced_film.py --game anacund --tilts 10,25,35 --fills 0.4,0.6
    python bench/pathtraced_film.py --game gyges --tilts 25 --export tests/vision/pathtraced/film  # the committed film

Needs the ``[bench]`` extra (Mitsuba 3). A scripted game (from the set-up start, as
``bench/decision_latency.py --filmed`` films it on the camera model) is acted out by
:func:`vision.simulated.scene_film.film` — an arm reaches in, lifts the piece, carries it, puts it
down and withdraws, at 6 frames a second — and every frame with the arm, and each still spell
once, is path traced (:mod:`vision.simulated.pathtraced`: the printed sheet, the game's pieces as
people put them down, the arm and what it carries, the three lights, a Camera Module 3's thin
lens). A piece stays exactly where it was put down until it is moved
(:func:`~vision.simulated.pathtraced.pieces.placed_after`); the paper's bend and the lamps stay
as they are through the film.

**Motion blur**: a frame with the arm is the mean of ``--blur`` renders of the arm along its
path during the exposure (1/30 s, a Camera Module 3 at 30 frames a second indoors: a fifth of
the way from the previous 6-fps frame's position), their samples shared out so the frame costs
what one render does. A frame with the arm takes ``--hand-spp`` samples a pixel (8; its guides
as many): the referee decides on the still frames (16 samples, guides 32), and a moving frame
rendered at full quality costs 1-3 minutes on two cores.

Each frame is developed by :mod:`vision.simulated.pathtraced.sensor` (one camera for the film:
its auto exposure, its noise drawn anew each frame, JPEG), shaken by up to a quarter pixel, and
read by ``CameraSource`` → ``Stabiliser`` → ``Referee`` (a real journal), the reader calibrated on
three renders of the empty board (and a colour game's layout) from the same camera. Judged by
:func:`bench.decision_latency.play_film`: every move accepted as played, none wrong, no position
with a piece in the hand, no board reported with the arm over the sheet. The latency reference
(when the arm and its shadow have left the sheet) is taken on the camera model placed as the
path tracer's camera (pinhole, its lamp): the path-traced shadows of three lights are softer.

Frames go into ``--cache`` (linear float16, one file per render); a frame already there is not
rendered again. ``--export DIR`` writes the developed film as ``DIR/<name>.mp4`` (H.264 through
PyAV's libx264, as a camera streams; in the ``[bench]`` extra) with its calibration frames and
truth, for the tests.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from dataclasses import asdict, replace
from fractions import Fraction
from functools import cached_property
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import cv2  # noqa: E402
import numpy as np  # noqa: E402

from bench.decision_latency import FilmedGame, Run, play_film, positions_after  # noqa: E402
from bench.vision_pathtraced import Cache, settled_ev, sheet_ev  # noqa: E402
from rules import get_game  # noqa: E402
from rules.view import View  # noqa: E402
from vision.read.calibration import calibrate, colour_layout  # noqa: E402
from vision.readers.for_game import grid_for, reader_for  # noqa: E402
from vision.sheets.layout import DEFAULT_MODE, Sheet  # noqa: E402
from vision.simulated.camera_model import CameraModel, Hand, Scene  # noqa: E402
from vision.simulated.scene_film import FilmFrame, FilmTiming, film  # noqa: E402
from vision.simulated.sessions import scripted_game, setup_length  # noqa: E402

GAMES = ("gyges", "anacund", "annihilation", "annelids", "drift")
# Brisk hands at 6 frames a second (as tests/vision/test_film_games.py films the camera model):
# each frame with the arm is rendered anew, a still spell once.
TIMING = FilmTiming(fps=6.0, opening_s=1.0, still_s=1.5, closing_s=2.0, reach_s=0.4, lift_s=0.3, carry_s=0.6,
                    lower_s=0.3, withdraw_s=0.4)
SHUTTER_S = 1 / 30


def shots(frames: list[FilmFrame]) -> list[int]:
    """For each frame, the index of the render it shows: a still spell is one scene, drawn once."""
    out: list[int] = []
    for k, f in enumerate(frames):
        out.append(out[-1] if k and f.scene is frames[k - 1].scene else k)
    return out


def _hand_at(a: Hand, b: Hand, u: float) -> Hand:
    """The hand ``u`` of the way from ``a`` to ``b`` (what it holds: ``b``'s)."""
    return replace(b, at=(a.at[0] + (b.at[0] - a.at[0]) * u, a.at[1] + (b.at[1] - a.at[1]) * u),
                   height_mm=a.height_mm + (b.height_mm - a.height_mm) * u,
                   lift_mm=a.lift_mm + (b.lift_mm - a.lift_mm) * u)


def exposure_hands(frames: list[FilmFrame], k: int, blur: int, fps: float) -> list[tuple[Hand, ...]]:
    """The arm's positions sampled over frame ``k``'s exposure (its end: the frame's own)."""
    now = frames[k].scene.hands
    before = frames[k - 1].scene.hands if k else ()
    if blur <= 1 or not now or len(before) != len(now):
        return [now]
    share = min(1.0, SHUTTER_S * fps)
    return [tuple(_hand_at(b, a, 1.0 - share * (1 - j / (blur - 1))) for a, b in zip(now, before))
            for j in range(blur)]


class PTFilm:
    """One film: its scripted game, its frames, and how each is rendered."""

    def __init__(self, game: str, *, tilt: float, fill: float, moves: int, seed: int, spp: int, guide_spp: int,
                 blur: int, hand_spp: int, lens: str = "standard", lights: str = "all", cache: Path,
                 metering: bool = True) -> None:
        from vision.simulated.pathtraced.pieces import placed_after, placed_pieces
        from vision.simulated.pathtraced.scene import PTSetup

        self.game, self.seed, self.blur, self.hand_spp = game, seed, blur, hand_spp
        self.metering = metering  # exposure compensation metered on the sheet, as the service does
        self.grid = grid_for(Sheet.for_board(get_game(game).board()))
        self.sheet = self.grid.sheet
        self.setup = PTSetup(size=(1920, 1080) if game == "drift" else (1280, 720), spp=spp, guide_spp=guide_spp,
                             tilt_deg=tilt, fill=fill, lens=lens, lights=lights)
        start = get_game(game).default_setup()
        self.start, self.played = scripted_game(game, seed, setup_length(start) + moves, start)
        self.frames = film(self.sheet, self.start, self.played, base=Scene(heights=1.0), timing=TIMING)
        self.shot = shots(self.frames)
        name = f"film-{game}-t{tilt:g}-f{fill:g}-{lens}-{lights}-m{moves}-s{seed}-spp{spp}-g{guide_spp}-h{hand_spp}-b{blur}"
        self.cache = Cache(Path(cache) / name)  # DIR/film-<game>-<setting>/
        # the pieces as put down, scene by scene: a piece stays where it was until it is moved
        rng = np.random.default_rng(seed)
        self.pieces: dict[int, list] = {}
        last_view, last = None, []
        for k in sorted(set(self.shot)):
            view = self.frames[k].view
            if last_view is None:
                last = placed_pieces(self.sheet, view, rng)
            elif view != last_view:
                last = placed_after(last, self.sheet, view, rng)
            self.pieces[k], last_view = last, view
        self.render_s: list[float] = []

    def _render(self, name: str, pieces: list, view: View, hands_over_exposure: list[tuple[Hand, ...]],
                sample_seed: int) -> np.ndarray:
        from vision.simulated.pathtraced.scene import render_channels

        hit = self.cache.get(name)
        if hit is not None:
            return hit[0]
        t0 = time.perf_counter()
        n = len(hands_over_exposure)
        spp, guide_spp = (self.hand_spp, self.hand_spp) if any(hands_over_exposure) else (self.setup.spp, self.setup.guide_spp)
        setup = replace(self.setup, spp=max(1, round(spp / n)), guide_spp=max(1, round(guide_spp / n)))
        parts = [render_channels(self.sheet, pieces, setup, self.cache.dir / "work", seed=self.seed * 1000 + 999,
                                 view=view, sample_seed=sample_seed + 7919 * j, hands=hands)
                 for j, hands in enumerate(hands_over_exposure)]
        channels = np.mean(parts, axis=0)
        dt = time.perf_counter() - t0
        self.render_s.append(dt)
        self.cache.put(name, channels, {"render_s": round(dt, 1), "view": {s: list(view.get_tokens(s)) for s in view},
                                        "hands": [[asdict(h) for h in hs] for hs in hands_over_exposure]})
        return self.cache.get(name)[0]  # as stored (float16): a film played on its first run as on every later one

    def _empty(self, r: int) -> np.ndarray:
        """The ``r``-th render of the empty board, denoised."""
        from vision.simulated.pathtraced.denoise import denoise

        return denoise(self._render(f"empty-r{r}", [], View(), [()], self.seed * 1000 + 999 + 31 * r))

    @cached_property
    def ev(self) -> float:
        """The exposure compensation the service settles on over the empty board (metering the
        locked sheet in set-up mode, vision/camera/exposure.py); the whole film is taken at it."""
        return sheet_ev(self._empty(0), self.sheet, self.seed) if self.metering else 0.0

    @cached_property
    def calibration(self) -> tuple[list[np.ndarray], list]:
        """Three developed frames of the empty board (three renders) and, for a colour game, its layout."""
        from vision.simulated.pathtraced.denoise import denoise
        from vision.simulated.pathtraced.sensor import develop, random_sensor

        base = self.seed * 1000 + 999
        empty = [develop(self._empty(r),
                         replace(random_sensor(np.random.default_rng(self.seed * 100 + r)), ev=self.ev),
                         np.random.default_rng(r)) for r in range(3)]
        shots_ = []
        if DEFAULT_MODE.get(self.game, "tags") == "colour":
            from vision.simulated.pathtraced.pieces import placed_pieces

            lay = colour_layout(self.sheet)
            lin = self._render("layout", placed_pieces(self.sheet, lay, np.random.default_rng(self.seed + 5)), lay, [()],
                               base + 998)
            shots_ = [(develop(denoise(lin), replace(random_sensor(np.random.default_rng(self.seed * 100 + 50)), ev=self.ev),
                               np.random.default_rng(50)), lay)]
        return empty, shots_

    def _scene(self, k: int) -> np.ndarray:
        """The render of frame ``k``'s scene (its still spell, or the arm's place), denoised."""
        from vision.simulated.pathtraced.denoise import denoise

        s = self.shot[k]
        hands = exposure_hands(self.frames, s, self.blur, TIMING.fps)
        return denoise(self._render(f"scene{s:04d}", self.pieces[s], self.frames[k].view, hands, self.seed * 100000 + s))

    @cached_property
    def film_ev(self) -> float:
        """The EV the film is taken at: the service meters every still frame while it reads
        (vision/camera/source.py), so over the first still spell (1.5 s, the meter's settle 1 s) it
        moves from the calibration's EV where the film's own camera shows the paper clipped, hot
        or dark there (a lamp's spot on 2-3 % of the sheet: half a stop down)."""
        from vision.simulated.pathtraced.sensor import develop, random_sensor

        if not self.metering:
            return self.ev
        lin, sensor = self._scene(0), random_sensor(np.random.default_rng(self.seed + 23))
        return settled_ev(lambda ev: develop(lin, replace(sensor, ev=ev), np.random.default_rng(0)), self.sheet,
                          start=self.ev)

    def images(self):
        """The film's camera frames, in order (a render per scene, developed anew each frame)."""
        from vision.simulated.pathtraced.sensor import develop, random_sensor

        rng = np.random.default_rng(self.seed + 17)
        sensor = replace(random_sensor(np.random.default_rng(self.seed + 23)), ev=self.film_ev)  # one camera for the film
        held_k, lin = None, None
        for k, f in enumerate(self.frames):
            s = self.shot[k]
            if s != held_k:
                lin = self._scene(k)
                held_k = s
            dx, dy = rng.uniform(-0.25, 0.25, 2)  # the shelf's shake, under a pixel
            shaken = cv2.warpAffine(lin, np.float32([[1, 0, dx], [0, 1, dy]]), (lin.shape[1], lin.shape[0]),
                                    borderMode=cv2.BORDER_REPLICATE)
            yield develop(shaken, sensor, rng)

    def filmed_game(self) -> FilmedGame:
        empty, shots_ = self.calibration
        mode = DEFAULT_MODE.get(self.game, "tags")
        cal = calibrate(self.grid, empty, mode=mode, shots=shots_)
        model = CameraModel(self.sheet, self.setup.camera)  # for when the arm has left the sheet
        return FilmedGame(self.game, self.setup.tilt_deg, self.start, self.played, self.frames, model,
                          reader_for(self.grid, cal))


H264_CRF = 23  # x264's default quality: a camera's stream at a few Mbit/s (1280x720 at 30 fps)


def write_h264(path: Path, frames: list[np.ndarray], fps: float) -> None:
    """The developed frames (BGR) as H.264 in MP4 (libx264 through PyAV, 4:2:0 as a camera's
    encoder gives it, every frame a new picture at ``fps``): what ``OpenCVCapture`` plays in the
    service. Each frame was JPEG already (the camera's), so the codec's blocks come on top."""
    import av

    if not frames:
        raise ValueError(f"{path}: no frames to write")
    h, w = frames[0].shape[:2]
    with av.open(str(path), "w") as out:
        stream = out.add_stream("libx264", rate=Fraction(fps).limit_denominator(1001))
        stream.width, stream.height, stream.pix_fmt = w, h, "yuv420p"
        stream.options = {"crf": str(H264_CRF)}
        for img in frames:
            for packet in stream.encode(av.VideoFrame.from_ndarray(np.ascontiguousarray(img), format="bgr24")):
                out.mux(packet)
        for packet in stream.encode():
            out.mux(packet)


def run_film(pf: PTFilm, export: Path | None = None) -> tuple[Run, dict]:
    fg = pf.filmed_game()
    run = Run()
    images = pf.images()
    kept: list[np.ndarray] = []
    if export is not None:
        def keep(it):
            for img in it:
                kept.append(img)
                yield img
        images = keep(images)
    t0 = time.perf_counter()
    decided = play_film(fg, run, images=images)
    info = {"frames": len(pf.frames), "renders": len(set(pf.shot)), "decided": decided,
            "wall_s": round(time.perf_counter() - t0, 1)}
    if export is not None:
        export.mkdir(parents=True, exist_ok=True)
        stem = pf.cache.dir.name
        write_h264(export / f"{stem}.mp4", kept, TIMING.fps)
        empty, shots_ = pf.calibration
        for i, e in enumerate(empty):
            cv2.imwrite(str(export / f"{stem}-empty{i}.jpg"), e, [cv2.IMWRITE_JPEG_QUALITY, 95])
        for frame, _ in shots_:
            cv2.imwrite(str(export / f"{stem}-layout.jpg"), frame, [cv2.IMWRITE_JPEG_QUALITY, 95])
        (export / f"{stem}.json").write_text(json.dumps({
            "game": pf.game, "seed": pf.seed, "setup": asdict(pf.setup), "fps": TIMING.fps,
            "start": pf.start.to_dict(), "moves": [str(m) for m in pf.played],
            "positions": [p.to_dict() for p in positions_after(pf.start, pf.played)],
            "frames": [{"time": round(f.time, 4), "move": f.move, "hand": f.hand} for f in pf.frames]}, indent=1))
    return run, info


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--game", default="gyges", choices=GAMES)
    ap.add_argument("--tilts", default="25", help="comma-separated degrees (default 25)")
    ap.add_argument("--fills", default="0.6", help="comma-separated shares of the frame (default 0.6)")
    ap.add_argument("--moves", type=int, default=3)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--spp", type=int, default=16, help="samples a pixel (default 16)")
    ap.add_argument("--guide-spp", type=int, default=32, help="samples a pixel of the denoiser's guides (default 32)")
    ap.add_argument("--hand-spp", type=int, default=8,
                    help="samples a pixel (and of the guides) of a frame with the arm in it (default 8)")
    ap.add_argument("--blur", type=int, default=2, help="renders averaged over a frame's exposure where the arm moves")
    ap.add_argument("--lens", default="standard")
    ap.add_argument("--lights", default="all")
    ap.add_argument("--cache", default=os.path.expanduser("~/.cache/tableref/pathtraced"))
    ap.add_argument("--export", default=None, metavar="DIR")
    ap.add_argument("--no-metering", action="store_true",
                    help="the plain auto exposure (no compensation metered on the sheet: vision/camera/exposure.py)")
    args = ap.parse_args(argv)
    cv2.setNumThreads(1)
    bad = 0
    print(f"{args.game}: {args.moves} moves, {args.spp} spp (guides {args.guide_spp}; with the arm {args.hand_spp}), "
          f"motion blur {args.blur} renders, "
          f"{TIMING.fps:g} fps")
    for tilt in (float(t) for t in args.tilts.split(",")):
        for fill in (float(f) for f in args.fills.split(",")):
            pf = PTFilm(args.game, tilt=tilt, fill=fill, moves=args.moves, seed=args.seed, spp=args.spp,
                        guide_spp=args.guide_spp, blur=args.blur, hand_spp=args.hand_spp, lens=args.lens, lights=args.lights,
                        cache=Path(args.cache), metering=not args.no_metering)
            run, info = run_film(pf, Path(args.export) if args.export else None)
            lat = f"{statistics.median(run.latencies):.2f} s" if run.latencies else "—"
            render = f"{statistics.median(pf.render_s):.0f} s/render" if pf.render_s else "cached"
            print(f"  tilt {tilt:>4g}  fill {fill:.0%}  {info['frames']} frames ({info['renders']} renders, {render}): "
                  f"{run.decided} of {run.moves} accepted as played, {run.wrong} wrong, {run.intermediate} in-between, "
                  f"{run.with_hand} with the arm over the sheet; decision after the arm leaves p50 {lat}"
                  + (f"; EV {pf.ev:+.1f} metered on the sheet" if pf.ev else "")
                  + (f"; the film at EV {pf.film_ev:+.1f} (metered over its first still spell)"
                     if pf.film_ev != pf.ev else ""), flush=True)
            bad += run.wrong + run.intermediate + run.with_hand
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
