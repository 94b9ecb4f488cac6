"""``tableref print-board``, ``tableref print-tags``, ``tableref calibrate``: the camera's
paper and set-up (see ``docs/vision.md``).

    tableref print-board --game G --out FILE.pdf|FILE.png [--paper A4|A3] [--dpi N] [--layout standard|compact]
    tableref print-tags --game G --out FILE.pdf|FILE.png [--paper A4|A3] [--dpi N]
    tableref calibrate --source SPEC --game G --out FILE.npz [--position start|FILE.json]
                       [--frames N] [--snapshot FILE.png] [--lens LENS.json]
    tableref calibrate-lens [--print-sheet FILE.png] [--source SPEC|IMG,IMG,... --out LENS.json]
    tableref print-markers --out FILE.pdf|FILE.png [--marker-mm N] [--dpi N]
    tableref fit-board --game G --source SPEC --handles ID=X,Y;... --out GEOMETRY.json [--lens LENS.json]

``calibrate --geometry GEOMETRY.json`` reads an own board (``fit-board``, or the set-up page)
instead of the printed sheet.

Malformed input prints one line ``tableref: WHERE: WHAT`` on stderr and exits 2. OpenCV is
imported only when one of these commands runs, so the other commands start as fast as ever.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from rules import RulesError, get_game

EXIT_OK = 0
EXIT_INPUT = 2


def add_parser(subparsers: Any) -> None:
    """Register ``print-board``, ``print-tags`` and ``calibrate`` on ``subparsers``."""
    for name, text in (("print-board", "draw a game's board with corner markers, at true scale, for printing"),
                       ("print-tags", "draw the sticker sheet of piece tags for a game")):
        p = subparsers.add_parser(name, help=text, description=text)
        p.add_argument("--game", required=True, help="the game (see `tableref rules games`)")
        p.add_argument("--out", required=True, type=Path, help="output file: .pdf (true size) or .png")
        p.add_argument("--paper", default="A4", choices=("A4", "A3"), help="paper size (default A4); "
                       "a board larger than the page is cut into overlapping tiles")
        p.add_argument("--dpi", type=int, default=200, help="resolution (default 200)")
        if name == "print-board":
            p.add_argument("--layout", default="standard", choices=("standard", "compact"),
                           help="standard: true scale; compact: scaled to one A3 (two A4 with --paper A4), "
                                "reserves off the sheet (docs/vision.md, 'Compact print')")
        p.set_defaults(func=cmd_print_board if name == "print-board" else cmd_print_tags)

    p = subparsers.add_parser("calibrate", help="lock onto the printed board, learn it empty, save the calibration",
                              description="Lock onto the board's corner markers and learn the empty board "
                                          "(and, with --position, the pieces' colours).")
    p.add_argument("--source", required=True,
                   help="camera: 'auto', 'picamera', a webcam index (0), a video file or a stream URL")
    p.add_argument("--game", required=True, help="the game whose printed board is in view")
    p.add_argument("--out", required=True, type=Path, help="calibration file to write (.npz)")
    p.add_argument("--position", default=None,
                   help="the board now shows a known position: 'start', 'default' (the game's default set-up), 'layout' "
                        "(the calibration layout in docs/vision.md) or a position file (JSON); learns the pieces' "
                        "colours into --out")
    p.add_argument("--frames", type=int, default=10, help="frames to average (default 10)")
    p.add_argument("--snapshot", type=Path, default=None, help="write a PNG of the frame with the lock drawn")
    p.add_argument("--lens", type=Path, default=None,
                   help="the camera's lens file (tableref calibrate-lens): give the same one as [source.camera] lens; "
                        "without it, a wide lens's barrel is measured from the board's printed lines and saved "
                        "beside --out as <name>-lens.json, where the service finds it")
    p.add_argument("--geometry", type=Path, default=None,
                   help="an own board's geometry (tableref fit-board): give the same one as [source.camera] geometry")
    p.add_argument("--rings", type=Path, default=None,
                   help="Gygès without stickers: with --position default (the rings on their default set-up, each "
                        "on its space's centre), learn how each ring's tiers look into this file; give it as "
                        "[source.camera] rings")
    p.set_defaults(func=cmd_calibrate)

    text = "draw the four corner markers alone, to stick on your own board (with a scale bar)"
    p = subparsers.add_parser("print-markers", help=text, description=text)
    p.add_argument("--out", required=True, type=Path, help="output file: .pdf (true size) or .png")
    p.add_argument("--marker-mm", type=float, default=30.0, help="the markers' side in mm (default 30)")
    p.add_argument("--dpi", type=int, default=300, help="resolution (default 300)")
    p.set_defaults(func=cmd_print_markers)

    p = subparsers.add_parser("fit-board", help="fit your own board's geometry from the camera and four handles",
                              description="Fit an own board (four corner markers stuck on, tableref print-markers) "
                                          "from the camera's picture and four spaces' centres in it (pixels); "
                                          "writes the board geometry (JSON) for calibrate --geometry and "
                                          "[source.camera] geometry. The set-up page does the same by dragging.")
    p.add_argument("--game", required=True, help="the game whose board is in view")
    p.add_argument("--source", required=True, help="camera: 'auto', 'picamera', a webcam index, a video or image file")
    p.add_argument("--handles", required=True,
                   help="space=x,y pixel pairs separated by ';' (e.g. 'a6=412,208;f6=870,215;f1=880,650;a1=405,640'); "
                        "run without a valid list to be told which four spaces")
    p.add_argument("--out", required=True, type=Path, help="board geometry file to write (.json)")
    p.add_argument("--marker-mm", type=float, default=30.0, help="the stuck-on markers' printed side (default 30)")
    p.add_argument("--lens", type=Path, default=None, help="the camera's lens file, if it has one")
    p.add_argument("--frames", type=int, default=5, help="frames to look for the markers in (default 5)")
    p.set_defaults(func=cmd_fit_board)

    p = subparsers.add_parser("calibrate-lens", help="print the ChArUco sheet, or measure the camera's lens from it",
                              description="Measure the lens (intrinsics and distortion) from frames of the printed "
                                          "ChArUco sheet: --print-sheet FILE.png first, then --source with the "
                                          "sheet held at several angles; writes a lens file (JSON).")
    p.add_argument("--print-sheet", type=Path, default=None, help="write the ChArUco sheet (.png; print at 100 %%)")
    p.add_argument("--dpi", type=int, default=200, help="sheet resolution (default 200)")
    p.add_argument("--source", default=None, help="a video file, a webcam index, or image files (comma-separated)")
    p.add_argument("--out", type=Path, default=None, help="lens file to write (.json)")
    p.add_argument("--frames", type=int, default=40, help="frames to try from a camera or video (default 40)")
    p.set_defaults(func=cmd_calibrate_lens)


def _fail(where: str, what: str) -> int:
    print(f"tableref: {where}: {what}", file=sys.stderr)
    return EXIT_INPUT


def _sheet(game_name: str, geometry: Path | None = None):
    """The printed sheet, or an own board read through its geometry file (GeometryError)."""
    from vision.sheets.layout import Sheet

    board = get_game(game_name).board()
    if geometry is None:
        return Sheet.for_board(board)
    from vision.sheets.geometry import BoardGeometry

    return Sheet.from_geometry(board, BoardGeometry.load(geometry))


def cmd_print_board(args: argparse.Namespace) -> int:
    return _print(args, tags=False)


def cmd_print_tags(args: argparse.Namespace) -> int:
    return _print(args, tags=True)


def _print(args: argparse.Namespace, *, tags: bool) -> int:
    from vision.sheets import render

    if args.out.suffix.lower() not in (".pdf", ".png"):
        return _fail("--out", f"{args.out}: must end in .pdf or .png")
    if not 50 <= args.dpi <= 600:
        return _fail("--dpi", f"must be between 50 and 600, got {args.dpi}")
    try:
        sheet = _sheet(args.game)
        if getattr(args, "layout", "standard") == "compact":
            sheet = render.compact_sheet(sheet.board, "A3")
            fit = render.compact_fit(sheet.board, "A3")
            note = "the pieces fit" if fit.pieces_fit else \
                f"the pieces ({fit.piece_mm:g} mm) do NOT fit: print the standard layout, or use smaller pieces"
            print(f"{args.game}: compact at {100 * fit.scale:.0f} %, spaces {fit.pitch:g} mm apart; {note}",
                  file=sys.stderr)
    except RulesError as exc:
        return _fail("--game", str(exc))
    s = args.dpi / 25.4
    try:
        pages = render.tag_pages(sheet, paper=args.paper, px_per_mm=s) if tags \
            else render.board_pages(sheet, paper=args.paper, px_per_mm=s, assembly=True)
    except ValueError as exc:
        return _fail("--game", str(exc))
    try:
        paths = render.write_pages(pages, args.out)
    except OSError as exc:
        return _fail("--out", str(exc))
    for path in paths:
        print(path)
    return EXIT_OK


def cmd_calibrate(args: argparse.Namespace) -> int:
    import cv2
    import numpy as np

    from vision.camera.capture import CaptureError, open_capture, read_size
    from vision.read.calibration import lock_on
    from vision.read.empty_board import Calibration, CalibrationError
    from vision.read.lock import draw_lock
    from vision.readers.for_game import grid_for
    from vision.sheets.geometry import GeometryError

    from ..camera_setup import SetupError

    try:
        sheet = _sheet(args.game, args.geometry)
    except RulesError as exc:
        return _fail("--game", str(exc))
    except GeometryError as exc:
        return _fail("--geometry", str(exc))
    if args.frames < 1:
        return _fail("--frames", f"must be at least 1, got {args.frames}")
    if args.rings is not None and (args.game != "gyges" or args.position is None):
        return _fail("--rings", "learns Gygès's rings from a known position: --game gyges --position default")
    lens = None
    if args.lens is not None:
        from vision.read.lens import Lens, LensError

        try:
            lens = Lens.load(args.lens)
        except LensError as exc:
            return _fail("--lens", str(exc))
    grid = grid_for(sheet)
    view = None
    if args.position is not None:
        try:
            view = _position_view(args.game, args.position, sheet)
        except (RulesError, OSError, ValueError) as exc:
            return _fail("--position", str(exc))
    try:
        with open_capture(args.source, read_size(args.game)) as cap:  # learned at the size the service reads
            frames = []
            for f in cap.frames():
                frames.append(f.image)
                if len(frames) >= args.frames + 5:
                    break
    except CaptureError as exc:
        return _fail("--source", str(exc))
    board_lens = None  # the lens the empty board's printed lines show (tableref/lens_setup.py)
    if lens is None:
        from vision.read.lens import Lens, LensError

        from ..camera_setup import CameraSpec
        from ..lens_setup import beside, from_board, keep_board_lens, measures_board

        saved = beside(args.out)
        if saved is not None:  # measured when the board was learned empty: the colours are learned through it
            try:
                lens = Lens.load(saved)
            except LensError as exc:
                return _fail(str(saved), str(exc))
        spec = CameraSpec(args.game, args.out, lens=lens, lens_path=saved)
        if view is None and args.rings is None and measures_board(spec):
            # Measured again each time the board is learned empty (the camera may have been changed):
            # a wide lens's barrel, saved beside the calibration (where the service looks) once learned.
            board_lens = from_board(spec, sheet, frames[-args.frames:])
            lens = board_lens.lens
    locked = lock_on(sheet, frames, lens=lens)
    if not locked:
        return _fail("--source", f"the four corner markers of the {args.game} board are not all in view "
                                 + ("(stuck on your board as when it was fitted; light it evenly)" if args.geometry
                                    else "(print it with `tableref print-board`, light it evenly)"))
    if args.rings is not None:
        return _learn_rings(args, grid, lens, view, locked[-args.frames:])
    try:
        if view is None:
            cal = Calibration.from_empty(grid, locked[-args.frames:])
        else:
            if not args.out.exists():
                return _fail("--out", f"{args.out}: calibrate the empty board first (without --position)")
            cal = Calibration.load(args.out, grid)
            cal = cal.learn_colours(grid, [(f, H, view) for f, H in locked[-args.frames:]])
        if board_lens is not None and board_lens.changed:
            keep_board_lens(board_lens)  # (SetupError: an OSError's message, with the file)
        cal.save(args.out)
    except CalibrationError as exc:
        return _fail(str(args.out), str(exc))
    except (OSError, SetupError) as exc:
        return _fail("--out", str(exc))
    frame, H = locked[-1]
    from vision.read.pose import as_pose
    from vision.read.scale import board_scale

    from ..camera_setup import scale_warning

    scale = board_scale(H, sheet)  # learned at the size the service reads: the reader's own pixels
    if scale.too_small:
        print(f"tableref: {args.source}: {str(scale_warning(scale, args.game)).lstrip('; ')}", file=sys.stderr)
    w, h = sheet.size
    corners = as_pose(H).to_px(np.float32([[0, 0], [w, 0], [w, h], [0, h]]))
    H = as_pose(H).H
    print(json.dumps({"game": args.game, "calibration": str(args.out), "mode": cal.mode,
                      "frames": len(locked[-args.frames:]),
                      "sheet_corners_px": [[round(float(x), 1), round(float(y), 1)] for x, y in corners],
                      "colours": [c.name for c in cal.classes],
                      "board_scale": {"px_per_mm": round(scale.px_per_mm, 3), "smallest_at": scale.space,
                                      "needed_px_per_mm": scale.needed},
                      **({"lens_from_board": board_lens.why} if board_lens is not None else {}),
                      **({"lens": str(board_lens.path)} if board_lens is not None and lens is not None else {}),
                      **({"lens_removed": str(board_lens.path)} if board_lens is not None and board_lens.remove else {})}))
    if args.snapshot is not None:
        cv2.imwrite(str(args.snapshot), draw_lock(frame, sheet, H))
    return EXIT_OK


def _learn_rings(args: argparse.Namespace, grid, lens, view, locked) -> int:
    """The rings' tiers learned from frames of a known position, on the empty board's calibration
    (``--out``, made first); the calibration itself is left as it is."""
    from vision.read.empty_board import Calibration, CalibrationError
    from vision.readers.ring_reading import learn_rings

    if not args.out.exists():
        return _fail("--out", f"{args.out}: calibrate the empty board first (without --position)")
    try:
        cal = Calibration.load(args.out, grid)
        rings = learn_rings(grid, cal, [(f, H, view) for f, H in locked], lens=lens)
        rings.save(args.rings)
    except CalibrationError as exc:
        return _fail("--rings", str(exc))
    except OSError as exc:
        return _fail("--rings", f"{args.rings}: cannot write: {exc.strerror}")
    print(json.dumps({"game": args.game, "calibration": str(args.out), "rings": str(args.rings),
                      "frames": len(locked), "present": [round(v, 3) for v in rings.present],
                      "absent": [round(v, 3) for v in rings.absent]}))
    return EXIT_OK


def cmd_calibrate_lens(args: argparse.Namespace) -> int:
    import cv2

    from vision.read.lens import LensError, calibrate_lens, charuco_image

    if args.print_sheet is None and args.source is None:
        return _fail("calibrate-lens", "give --print-sheet FILE.png, or --source and --out")
    if args.print_sheet is not None:
        if args.dpi < 72 or args.dpi > 1200:
            return _fail("--dpi", f"{args.dpi} is out of range (72-1200)")
        img = charuco_image(args.dpi)
        if not cv2.imwrite(str(args.print_sheet), img):
            return _fail("--print-sheet", f"cannot write {args.print_sheet} (a .png path)")
        print(f"wrote {args.print_sheet}: print at 100 % (30 mm squares), stick it on card")
    if args.source is None:
        return EXIT_OK
    if args.out is None:
        return _fail("--out", "give the lens file to write (.json)")
    frames = []
    parts = args.source.split(",")
    if all(Path(x).suffix.lower() in (".png", ".jpg", ".jpeg", ".bmp") for x in parts):
        for x in parts:
            img = cv2.imread(x)
            if img is None:
                return _fail("--source", f"cannot read image {x}")
            frames.append(img)
    else:
        from vision.camera.capture import CaptureError, open_capture

        try:
            with open_capture(args.source) as cap:
                step = 5 if Path(args.source).exists() else 15  # a video: every 5th frame; a camera: ~2 a second
                k = 0
                while len(frames) < args.frames:
                    got = cap.read()
                    if got is None:
                        break
                    if k % step == 0:
                        frames.append(got.image)
                    k += 1
        except CaptureError as exc:
            return _fail("--source", str(exc))
    try:
        lens, used = calibrate_lens(frames)
    except LensError as exc:
        return _fail("--source", str(exc))
    lens.save(args.out)
    print(json.dumps({"frames_used": used, "reprojection_error_px": round(lens.error_px, 3),
                      "size": list(lens.size), "hfov_deg": round(lens.hfov_deg, 1),
                      "dist": [round(float(v), 4) for v in lens.dist]}))
    return EXIT_OK


def cmd_print_markers(args: argparse.Namespace) -> int:
    from vision.sheets import render

    if args.out.suffix.lower() not in (".pdf", ".png"):
        return _fail("--out", f"{args.out}: must end in .pdf or .png")
    if not 50 <= args.dpi <= 600:
        return _fail("--dpi", f"must be between 50 and 600, got {args.dpi}")
    try:
        page = render.marker_page(marker_mm=args.marker_mm, px_per_mm=args.dpi / 25.4)
    except ValueError as exc:
        return _fail("--marker-mm", str(exc))
    try:
        paths = render.write_pages([page], args.out)
    except OSError as exc:
        return _fail("--out", str(exc))
    for path in paths:
        print(path)
    return EXIT_OK


def parse_handles(text: str) -> dict[str, tuple[float, float]]:
    """``a6=412,208;f6=870,215`` → ``{"a6": (412.0, 208.0), ...}`` (ValueError naming the pair)."""
    out: dict[str, tuple[float, float]] = {}
    for part in filter(None, (p.strip() for p in text.split(";"))):
        name, eq, xy = part.partition("=")
        try:
            if not eq:
                raise ValueError
            x, y = (float(v) for v in xy.split(","))
        except ValueError:
            raise ValueError(f"{part!r}: expected space=x,y (pixels)") from None
        if name.strip() in out:
            raise ValueError(f"{name.strip()!r} given twice")
        out[name.strip()] = (x, y)
    return out


def cmd_fit_board(args: argparse.Namespace) -> int:
    import cv2

    from vision.camera.capture import CaptureError, open_capture, read_size
    from vision.read.lock import detect, make_detector
    from vision.sheets.geometry import GeometryError, fit_geometry, reference_spaces
    from vision.sheets.layout import CORNER_IDS

    try:
        board = get_game(args.game).board()
    except RulesError as exc:
        return _fail("--game", str(exc))
    try:
        refs = reference_spaces(board)
        handles = parse_handles(args.handles)
    except GeometryError as exc:
        return _fail("--game", str(exc))
    except ValueError as exc:
        return _fail("--handles", f"{exc}; give the centres of {', '.join(refs)}")
    lens = None
    if args.lens is not None:
        from vision.read.lens import Lens, LensError

        try:
            lens = Lens.load(args.lens)
        except LensError as exc:
            return _fail("--lens", str(exc))
    markers: dict = {}
    size = None
    try:
        if Path(args.source).suffix.lower() in (".png", ".jpg", ".jpeg", ".bmp"):
            img = cv2.imread(args.source)
            if img is None:
                return _fail("--source", f"cannot read image {args.source}")
            shots = [img]
        else:
            shots = []
            with open_capture(args.source, read_size(args.game)) as cap:
                for f in cap.frames():
                    shots.append(f.image)
                    if len(shots) >= max(1, args.frames):
                        break
    except CaptureError as exc:
        return _fail("--source", str(exc))
    detector = make_detector()
    for img in shots:  # the frame that shows the most markers (a hand may pass)
        found = {i: c for i, c in detect(detector, cv2.cvtColor(img, cv2.COLOR_BGR2GRAY)).items() if i in CORNER_IDS}
        if len(found) >= len(markers):
            markers, size = found, (img.shape[1], img.shape[0])
    try:
        geometry = fit_geometry(board, handles, markers, marker_mm=args.marker_mm,
                                lens=lens.for_size(size) if lens is not None and size else None)
        geometry.save(args.out)
    except GeometryError as exc:
        return _fail("--handles", str(exc))
    except OSError as exc:
        return _fail("--out", str(exc))
    print(json.dumps({"game": args.game, "geometry": str(args.out), "scale": round(geometry.scale, 4),
                      "pitch_mm": round(geometry.pitch, 1), "handles_off_mm": round(geometry.residual_mm, 2),
                      "reference_spaces": list(refs)}))
    return EXIT_OK


def _position_view(game_name: str, position: str, sheet: Any) -> Any:
    from rules import Fidelity

    from vision.read.calibration import colour_layout

    game = get_game(game_name)
    if position == "start":
        return game.start().view(Fidelity.KIND)
    if position == "layout":
        return colour_layout(sheet)
    if position == "default":
        return game.default_setup().view(Fidelity.KIND)
    from rules.strict import loads  # duplicate keys refused, like every position reader

    path = Path(position)
    return game.from_dict(loads(path.read_text(encoding="utf-8"), where=str(path), error=ValueError)).view(Fidelity.KIND)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="tableref")
    add_parser(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(argv)
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
