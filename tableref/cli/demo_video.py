"""``tableref demo-video``: a camera demo with no camera — a scripted game of one of the
games filmed by the synthetic camera (vision/simulated/synth.py) as a video file, with that camera's
calibration and a config that plays the video through the service as its camera.

    tableref demo-video --game G --out DIR [--moves N] [--seed S]
    tableref serve --config DIR/G.toml          # then open the page; the video is refereed, looped

Writes ``DIR/G.avi``, ``DIR/G-calibration.npz``, ``DIR/G.toml`` (its journal and PIN in
``DIR/data``) and ``DIR/G-moves.txt`` (the moves the video shows, one a line).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from rules import Fidelity, RulesError, get_game

EXIT_OK = 0
EXIT_INPUT = 2
FPS = 10.0


def add_parser(subparsers: Any) -> None:
    p = subparsers.add_parser("demo-video", help="film a scripted game with the synthetic camera, to play "
                                                 "through the service as a camera (no camera needed)",
                              description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--game", required=True, help="the game (see `tableref rules games`)")
    p.add_argument("--out", required=True, type=Path, help="directory to write into (made if missing)")
    p.add_argument("--moves", type=int, default=8, help="moves to film, past any setup placements (default 8)")
    p.add_argument("--seed", type=int, default=1, help="camera set-up and moves (default 1)")
    p.set_defaults(func=cmd_demo_video)


def _fail(where: str, what: str) -> int:
    print(f"tableref: {where}: {what}", file=sys.stderr)
    return EXIT_INPUT


def cmd_demo_video(args: argparse.Namespace) -> int:
    if not 1 <= args.moves <= 60:
        return _fail("--moves", f"must be between 1 and 60, got {args.moves}")
    try:
        start = get_game(args.game).default_setup()
    except RulesError as exc:
        return _fail("--game", str(exc))
    from tableref.sources.sim import render_script
    from vision.simulated.sessions import Session, scripted_game, setup_length
    from vision.simulated.video import CAMERA_PAUSE, script_frames, write_video

    out: Path = args.out
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        return _fail("--out", str(exc))
    session = Session.create(args.game, args.seed)
    start, played = scripted_game(args.game, args.seed, setup_length(start) + args.moves, start)
    script = render_script(start, played, fidelity=Fidelity.KIND, seed=args.seed, noise=False,
                           settle_hold=CAMERA_PAUSE)
    frames = script_frames(session.renderer, [(f.view, f.unreadable) for f in script.frames], pose=session.pose,
                           effects=session.effects(hard=False), seed=args.seed)
    video, cal = out / f"{args.game}.avi", out / f"{args.game}-calibration.npz"
    config, moves = out / f"{args.game}.toml", out / f"{args.game}-moves.txt"
    texts, state = [], start
    for m in played:
        texts.append(state.move_text(m))
        state = state.successor(m)
    try:
        n = write_video(video, frames, fps=FPS)
        session.calibration.save(cal)
        moves.write_text("".join(t + "\n" for t in texts), encoding="utf-8")
        config.write_text(_config(args.game, video, cal, out / "data"), encoding="utf-8")
    except (OSError, ValueError) as exc:
        return _fail("--out", str(exc))
    w, h = session.renderer.size
    print(f"{video}: {n} frames at {w}x{h}, {n / FPS:.0f} s, {len(texts)} moves ({moves.name})")
    print(f"play it through the service:  tableref serve --config {config}")
    return EXIT_OK


def _config(game: str, video: Path, calibration: Path, data: Path) -> str:
    q = lambda p: '"' + str(p.resolve()).replace("\\", "\\\\").replace('"', '\\"') + '"'  # noqa: E731
    return (f"# tableref demo-video: the synthetic camera's film of a {game} game, played as the camera\n"
            f"[game]\nname = \"{game}\"\nsetup = \"default\"\n\n"
            f"[source]\nkind = \"camera\"\n\n"
            f"[source.camera]\nbackend = \"opencv\"\ndevice = {q(video)}\ncalibration = {q(calibration)}\n"
            f"fidelity = \"kind\"\npaced = true  # at the video's own pace, to watch on the page\n"
            f"loop = true  # at its end it starts again, a new game: whoever opens the page late still sees it\n\n"
            f"[data]\ndir = {q(data)}\n")
