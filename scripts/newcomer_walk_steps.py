"""The newcomer's walk's steps (scripts/newcomer-walk runs them in this order), and how a
command's subcommand is read, the same for the README's Commands table and for the walk's rows.

Each step function takes the Walk and opens one or more rows with ``w.step()``; inside a row,
``w.run``/``w.start`` run the command and the row's ``detail`` says what was checked."""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import signal
import socket
import subprocess
from itertools import product
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
WIRING = "firmware_bridge/wiring/gyges.json"
WORD = re.compile(r"[a-z][a-z-]*(\|[a-z][a-z-]*)*")  # a subcommand word, or alternatives of one


class Failed(Exception):
    """The step did not do what the README says."""


class Skipped(Exception):
    """The step cannot run here (a Debian tool missing, or a step it needs failed)."""


# -- the README's commands ----------------------------------------------------------------------------

def subcommand_of(command: str) -> str | None:
    """``tableref hub credentials add table-01`` -> ``hub credentials add``: the words after
    ``tableref`` up to the first argument (an option, a number, a path, a NAME). None for
    another program."""
    words = command.replace("\\|", "|").split()
    if not words or words[0] != "tableref":
        return None
    out = []
    for word in words[1:]:
        if not WORD.fullmatch(word):
            break
        out.append(word)
    return " ".join(out)


def readme_commands(readme: str) -> set[str]:
    """Every subcommand a `tableref …` of the README's Commands table names, in its command
    column or its description (``gpio check|scan`` is two)."""
    section = readme.split("\n## Commands", 1)[1].split("\n## ", 1)[0]
    found = set()
    for line in section.splitlines():
        if not line.startswith("| `"):
            continue
        for span in re.findall(r"`(tableref [^`]*)`", line):
            sub = subcommand_of(span)
            if sub:
                found.update(" ".join(p) for p in product(*(w.split("|") for w in sub.split())))
    return found


# -- a fresh clone; the two commands: serve, status ------------------------------------------------

def fresh_clone(w) -> None:
    """The newcomer starts in a fresh clone: the commands run in it, and name its files as the
    docs do (deploy/tableref.toml). The code is the installed entry point's."""
    with w.step(f"git clone --depth 1 file://{ROOT} tableref && cd tableref") as row:
        git = shutil.which("git")
        if git is None or not (ROOT / ".git").exists():
            raise Skipped(f"{'no git' if git is None else f'{ROOT} is not a git checkout'}: the walk runs beside it")
        done = subprocess.run([git, "clone", "-q", "--depth", "1", f"file://{ROOT}", "tableref"], cwd=w.dir,
                              capture_output=True, text=True, timeout=300)
        if done.returncode != 0:  # git's own trouble (a dubious owner, say), not the README's
            raise Skipped(f"git clone failed, the walk runs beside the checkout: {done.stderr.strip()[-200:]}")
        w.cwd = w.dir / "tableref"
        head = subprocess.run([git, "rev-parse", "--short", "HEAD"], cwd=w.cwd, capture_output=True, text=True)
        row.detail = f"a fresh clone of {head.stdout.strip()}; the walk's files are written in it"


def serve(w) -> None:
    with w.step() as row:
        bg = w.start(["serve", "--port", "0"], "serve")
        url = bg.wait_line(r"open (http://\S+/)").group(1)
        journal = bg.wait_line(r"journal (\S+);").group(1)
        expected = w.home / ".local" / "share" / "tableref" / "journal.sqlite3"
        if Path(journal) != expected:
            raise Failed(f"journal {journal}, not the README's ~/.local/share/tableref/journal.sqlite3")
        status, page = w.get(url)
        if status != 200 or b"<html" not in page.lower():
            raise Failed(f"GET {url}: HTTP {status}, not the page")
        state = w.get_json(url + "api/state")
        if state.get("game") != "gyges":
            raise Failed(f"/api/state plays {state.get('game')!r}, not Gygès")
        w.facts["serve"], w.facts["url"] = bg, url
        # The README: choose an admin PIN, click a ring to pick it up, click a space to put it down.
        ply = play_a1_a2(w, url)
        row.detail = (f"page at {url} (HTTP 200), /api/state Gygès; PIN chosen, a1 → a2 played on the "
                      f"simulated board (move {ply}); journal ~/.local/share/tableref/journal.sqlite3")
    with w.step("tableref status --url URL --json") as row:
        w.needs("url")
        done = w.run(["status", "--url", w.facts["url"], "--json"])
        health = json.loads(done.stdout)
        if health["game"]["name"] != "gyges" or health["game"]["ply"] != 1 or not health["source"]["connected"]:
            raise Failed(f"health says {health['game']}, source {health['source']}")
        row.detail = f"the service answers: game {health['game']['id']} (gyges) at move 1, source connected"
    with w.step("kill -TERM <tableref serve>") as row:
        w.needs("serve")
        bg = w.facts.pop("serve")
        w.stopped(bg)
        if "tableref: stopped" not in bg.lines:
            raise Failed("no 'tableref: stopped' line")
        row.detail = "exit 0, 'tableref: stopped'"
    with w.step("tableref status --url URL") as row:
        w.needs("url")
        done = w.run(["status", "--url", w.facts["url"]], expect=1)
        row.detail = "nothing answers now: exit 1, " + done.stderr.strip()[:60] + "…"


def play_a1_a2(w, url: str) -> int:
    """Choose the PIN, then lift the single ring on a1 and put it on a2, as the page's clicks do."""
    opener = w.browser()
    session = w.get_json(url + "api/session", opener)
    for path, body in (("api/pin", {"pin": "2468"}), ("api/sim/take", {"space": "a1"}),
                       ("api/sim/put", {"space": "a2"})):
        status, answer = w.post(opener, url + path, body, session["csrf"])
        if status >= 400:
            raise Failed(f"POST {path} {body}: HTTP {status} {answer}")
        session = w.get_json(url + "api/session", opener)  # a new login may turn the token
    w.poll("a1-a2 accepted", lambda: w.get_json(url + "api/state")["ply"] == 1)
    return 1


def serve_computer(w) -> None:
    with w.step() as row:
        # The journal by $TABLEREF_JOURNAL this time (--help's other way to place it).
        journal = w.cwd / "computer.sqlite3"
        w.env["TABLEREF_JOURNAL"] = str(journal)
        try:
            bg = w.start(["serve", "--port", "0", "--computer", "north:1"], "serve-computer")
        finally:
            del w.env["TABLEREF_JOURNAL"]
        w.current.command = "TABLEREF_JOURNAL=computer.sqlite3 " + w.current.command
        url = bg.wait_line(r"open (http://\S+/)").group(1)
        seats = w.get_json(url + "api/state").get("seats")
        if seats != {"north": "computer:1"}:
            raise Failed(f"/api/state seats {seats}, not north the computer at level 1")
        play_a1_a2(w, url)

        def shown():
            c = w.get_json(url + "api/state").get("computer")
            return c if c and not c.get("thinking") and c.get("steps") else None

        move = w.poll("the computer's move shown on the page", shown)
        w.stopped(bg)
        if not journal.exists():
            raise Failed(f"no journal at $TABLEREF_JOURNAL ({journal.name})")
        row.detail = (f"north is the computer (level 1): after a1-a2 it shows its move "
                      f"({move['steps'][0].get('description', move['steps'][0])}); journal at $TABLEREF_JOURNAL; "
                      "SIGTERM: exit 0")


# -- run, replay, games, export, import -----------------------------------------------------------------

def run_and_records(w) -> None:
    served = "url" in w.facts  # the browser's game, unfinished in the same default journal
    game = 2 if served else 1
    with w.step("tableref run") as row:
        # The README's order: serve (a move played in the browser), then `run`. The sample script
        # cannot go on with the browser's unfinished game: refused, naming `run --new`.
        if not served:
            raise Skipped("no unfinished game of the browser's to go on with")
        done = w.run(["run"], expect=2)
        if "`tableref run --new`" not in done.stderr:
            raise Failed("refused without naming `tableref run --new`: " + done.stderr.strip())
        row.detail = "the browser's game 1 is unfinished: exit 2, and it says to use `tableref run --new`"
    with w.step() as row:
        # "Kill it half-way and run it again: the game resumes where the journal left it."
        bg = w.start(["run", "--new", "--speed", "5"], "run-killed")
        bg.wait_line(r"^\s*3\. ")
        w.stopped(bg, sig=signal.SIGINT, expect=130)
        row.detail = f"a new game ({game}), Ctrl-C (SIGINT) after move 3: exit 130"
    with w.step() as row:
        done = w.run(["run", "--speed", "0"])
        first = re.search(r"^\s*(\d+)\. ", done.stdout, re.M)
        if first is None or int(first.group(1)) <= 3 or "south wins" not in done.stdout \
                or f"(game {game};" not in done.stderr:
            raise Failed("did not resume past move 3 and play to the end: " + done.stdout[:200])
        w.facts["game"] = str(game)
        row.detail = f"resumed game {game} at move {first.group(1)}, played to 'south wins'"
    with w.step(f"tableref replay {game}") as row:
        w.needs("game")
        done = w.run(["replay", str(game)])
        if not done.stdout.startswith(f"game {game}: gyges") or "result: south wins" not in done.stdout:
            raise Failed(f"not game {game} move by move: " + done.stdout[:200])
        row.detail = f"{done.stdout.count(chr(10)) - 2} moves printed, 'result: south wins (throne captured)'"
    with w.step() as row:
        done = w.run(["games"])
        want = [f"{game}\tgyges\t35 moves\tsouth won"]
        if served:
            want.insert(0, "1\tgyges\t1 moves\tin progress")
        if done.stdout.splitlines() != want:
            raise Failed(f"listed {done.stdout!r}")
        row.detail = " and ".join(repr(x.replace("\t", "  ")) for x in want)
    with w.step(f"tableref export {game} > game.txt") as row:
        w.needs("game")
        done = w.run(["export", str(game)], stdout_to="game.txt")
        if "Format: tableref-record 1" not in done.stdout or "Game: gyges" not in done.stdout:
            raise Failed("not a text game record: " + done.stdout[:200])
        row.detail = "a text game record (Format: tableref-record 1, Game: gyges)"
    with w.step(f"tableref export {game} --json > game.json") as row:
        w.needs("game")
        data = json.loads(w.run(["export", str(game), "--json"], stdout_to="game.json").stdout)
        if data.get("game") != "gyges" or len(data.get("moves", ())) != 35:
            raise Failed(f"JSON record of {data.get('game')}, {len(data.get('moves', ()))} moves")
        row.detail = "the JSON record: gyges, 35 moves"
    for n, name in enumerate(("game.txt", "game.json"), start=1):
        with w.step(f"tableref import {name} --journal other.sqlite3") as row:
            if not (w.cwd / name).exists():
                raise Skipped(f"{name} was not exported")
            done = w.run(["import", name, "--journal", "other.sqlite3"])
            if f"as game {n} in other.sqlite3: gyges, 35 moves, south wins" not in done.stdout:
                raise Failed(done.stdout.strip())
            row.detail = f"checked and journalled as game {n} of another journal: 35 moves, south wins"


def config_check(w) -> None:
    with w.step() as row:
        done = w.run(["config", "check", w.repo_file("deploy/tableref.toml")])
        if not done.stdout.splitlines()[0].endswith("tableref.toml: ok") or "game: gyges" not in done.stdout:
            raise Failed(done.stdout[:200])
        row.detail = "the example config: ok (gyges, simulated board, web, journal)"


def cli_examples(cli_md: Path) -> list[tuple[list[str], str]]:
    """docs/cli.md's `rules games` and `rules start` examples: the arguments and what it shows
    they print (stdout, or the one line on stderr of a refusal). The others need files first."""
    found, lines = [], cli_md.read_text(encoding="utf-8").splitlines()
    for i, line in enumerate(lines):
        if re.fullmatch(r"\$ tableref rules (games|start)[^|>#]*", line.strip()):
            shown = []
            for after in lines[i + 1:]:
                if after.startswith(("$ ", "```")):
                    break
                shown.append(after)
            found.append((shlex.split(line.strip()[len("$ tableref "):]), "\n".join(shown) + "\n"))
    return found


def rules(w) -> None:
    examples = cli_examples(Path(w.cwd, w.repo_file("docs/cli.md")))
    if not examples:
        with w.step("tableref rules games") as row:
            raise Failed("docs/cli.md shows no `$ tableref rules games` or `rules start` example")
    for args, shown in examples:
        with w.step() as row:
            refused = shown.startswith(("tableref: ", "usage: "))
            done = w.run(args, expect=2 if refused else 0)
            printed = done.stderr if refused else done.stdout
            if printed.split() != shown.split():  # argparse wraps its usage to the terminal's width
                raise Failed(f"docs/cli.md shows {shown!r}, it prints {printed!r}")
            row.detail = "as docs/cli.md shows: " + (shown.strip().replace("\n", " ") if len(shown) < 100
                                                      else shown[:60] + "…")
    with w.step() as row:
        pos = json.loads(w.run(["rules", "start", "--game", "Gygès", "--setup", "default"],
                               stdout_to="default.json").stdout)
        if pos.get("game") != "gyges" or pos.get("phase") != "play" or len(pos.get("rings", ())) != 12:
            raise Failed(f"position {pos}")
        row.detail = "the default set-up (game given by its title): 12 rings, in play"
    with w.step() as row:
        lines = w.run(["rules", "successors", "--position", "default.json"]).stdout.splitlines()
        first = json.loads(lines[0]) if lines else {}
        if len(lines) != 230 or first.get("move") != "a1-a2" or first["position"]["to_move"] != "north":
            raise Failed(f"{len(lines)} lines, first {first.get('move')}")
        row.detail = "230 lines, the first a1-a2 with north to move after it (docs/cli.md)"
    with w.step() as row:
        lines = w.run(["rules", "moves", "--position", "default.json", "--describe"]).stdout.splitlines()
        if len(lines) != 230 or lines[0] != "a1-a2\tSouth: single ring a1 → a2":
            raise Failed(f"{len(lines)} lines, first {lines[:1]}")
        row.detail = "230 moves, each with its sentence ('a1-a2<TAB>South: single ring a1 → a2')"
    with w.step() as row:
        after = {"a2": "1", "b1": "2", "c1": "3", "d1": "3", "e1": "2", "f1": "1",
                 "a6": "1", "b6": "2", "c6": "3", "d6": "3", "e6": "2", "f6": "1"}
        (w.cwd / "after.json").write_text(json.dumps(after), encoding="utf-8")
        got = json.loads(w.run(["rules", "explain", "--position", "default.json", "--observed", "after.json"]).stdout)
        if got["verdict"] != "legal" or got["candidates"] != [{"move": "a1-a2", "equivalent": []}]:
            raise Failed(f"{got}")
        row.detail = "verdict legal, a1-a2, as docs/cli.md shows"


# -- the serial sensor board ------------------------------------------------------------------------

def two_moves_script() -> str:
    """A reed board's script (docs/board-script.md) of two moves from the default set-up: a1-a2,
    which a reed board cannot tell from a1-b1/a2 (asked, answered 1), then e6-e4."""
    lines = [json.dumps({"board_script": 1, "game": "gyges", "fidelity": "occupancy", "setup": "default"})]
    board = {s: "occupied" for s in ("a1", "b1", "c1", "d1", "e1", "f1", "a6", "b6", "c6", "d6", "e6", "f6")}
    t = 0.0

    def hold(seconds: float) -> None:
        nonlocal t
        for _ in range(int(seconds / 0.2)):
            lines.append(json.dumps({"t": round(t, 1), "board": board}))
            t += 0.2

    hold(2)
    for frm, to in (("a1", "a2"), ("e6", "e4")):
        del board[frm]
        hold(0.4)  # the ring in the hand
        board[to] = "occupied"
        hold(2)  # long enough to be seen, asked and answered before the next move
    return "\n".join(lines) + "\n"


def serial(w) -> None:
    with w.step() as row:
        (w.cwd / "two-moves.jsonl").write_text(two_moves_script(), encoding="utf-8")
        bg = w.start(["simulate-board", "--script", "two-moves.jsonl", "--wait-for-referee"], "simulate-board")
        device = bg.wait_line(r"^(/\S+)$").group(1)
        if not Path(device).exists():
            raise Failed(f"printed {device}, which is not there")
        w.facts["board"], w.facts["device"] = bg, device
        row.detail = f"the virtual board's device: {device}"
    with w.step("tableref referee-serial --port DEVICE --wiring firmware_bridge/wiring/gyges.json") as row:
        w.needs("device")
        ref = w.start(["referee-serial", "--port", w.facts["device"], "--wiring", w.repo_file(WIRING), "--setup",
                       "default", "--journal", "serial.sqlite3", "--json", "--timeout", "20"], "referee-serial",
                      stdin=True)
        asked = ref.wait_line(r'"kind": "ambiguous"')
        ref.send("1\n")  # the terminal's answer: choice 1, a1-a2
        ref.wait_line(r'"kind": "accepted".*"move": "e6-e4"')
        code = ref.proc.wait(60)
        w.clean(ref.stderr())
        if code != 0:
            raise Failed(f"exit {code} at its --timeout: {ref.tail()}")
        accepted = [json.loads(x)["move"] for x in ref.lines if '"kind": "accepted"' in x]
        if accepted != ["a1-a2", "e6-e4"] or asked is None:
            raise Failed(f"accepted {accepted}")
        if '"state": "connected"' not in "\n".join(ref.lines) or "journal: serial.sqlite3 (game 1;" not in ref.stderr():
            raise Failed(f"not connected, or not journalled as game 1: {ref.tail()}")
        row.detail = ("connected; a1-a2 asked (ambiguous on reeds), answered 1 on stdin; a1-a2, e6-e4 accepted, "
                      "journalled (game 1)")
        w.current.command = w.current.command.replace(" &", " <<< 1")
    with w.step("kill -TERM <tableref simulate-board>") as row:
        w.needs("board")
        w.stopped(w.facts.pop("board"))
        if os.path.lexists(w.facts["device"]):
            raise Failed(f"{w.facts['device']} is still there")
        row.detail = "exit 0, its device link removed"


def gpio(w) -> None:
    on_pi = "raspberry pi" in _read("/proc/device-tree/model").lower()
    with w.step() as row:
        done = w.run(["gpio", "check"], expect=0 if on_pi else 1)
        if not on_pi and (not done.stdout.startswith("GPIO not available (") or "running without" in done.stdout):
            raise Failed(f"off a Pi it should say GPIO is not available and why, no more: {done.stdout!r}")
        row.detail = (done.stdout or done.stderr).strip().split(" (")[0] + (
            "" if on_pi else ": off a Pi, exit 1 with the reason (docs/wiring.md)")
    with w.step("tableref gpio scan") as row:
        if on_pi:
            raise Skipped("on a Pi it scans until Ctrl-C, waiting for a magnet on each space")
        w.run(["gpio", "scan"], expect=1)
        row.detail = "off a Pi: exit 1, GPIO not available"


def _read(path: str) -> str:
    try:
        return Path(path).read_text(errors="replace")
    except OSError:
        return ""


# -- the camera's paper, the demo video, calibration -----------------------------------------------------

def prints(w) -> None:
    for args, what in ((["print-board", "--game", "gyges", "--out", "board.pdf"], "the board, true scale, tiled on A4"),
                       (["print-board", "--game", "gyges", "--paper", "A3", "--out", "board.png"],
                        "PNG, a file a page"),
                       (["print-board", "--game", "gyges", "--layout", "compact", "--out", "compact.pdf"], "compact"),
                       (["print-tags", "--game", "gyges", "--out", "tags.pdf"], "the sticker sheet of piece tags"),
                       (["print-markers", "--out", "markers.png"], "the four corner markers and a scale bar")):
        with w.step() as row:
            done = w.run(args)
            files = [w.cwd / line for line in done.stdout.splitlines() if line.endswith((".pdf", ".png"))]
            magic = {".pdf": b"%PDF", ".png": b"\x89PNG"}
            bad = [f.name for f in files if not f.exists() or not f.read_bytes().startswith(magic[f.suffix])]
            if not files or bad:
                raise Failed(f"wrote {[f.name for f in files]}; not a PDF/PNG: {bad}")
            said = " — it says: " + done.stderr.strip() if "compact" in args else ""  # whether the pieces fit
            row.detail = f"{what}: {', '.join(f.name for f in files)}{said}"
    with w.step() as row:
        done = w.run(["calibrate-lens", "--print-sheet", "charuco.png"])
        if not (w.cwd / "charuco.png").read_bytes().startswith(b"\x89PNG"):
            raise Failed("charuco.png is not a PNG")
        row.detail = done.stdout.strip()
    with w.step("tableref calibrate-lens --source shot0.png,… --out lens.json") as row:
        names = charuco_shots(w.cwd)
        out = json.loads(w.run(["calibrate-lens", "--source", ",".join(names), "--out", "lens.json"]).stdout)
        if not (w.cwd / "lens.json").is_file() or out["frames_used"] < 6 or out["reprojection_error_px"] > 1:
            raise Failed(f"{out}")
        row.detail = (f"the lens measured from {out['frames_used']} shots of the sheet: reprojection error "
                      f"{out['reprojection_error_px']} px, {out['hfov_deg']}° across; lens.json")


def charuco_shots(where: Path) -> list[str]:
    """The sheet held up at several angles before a wide lens, as a person's photos would show it:
    here the project's camera model (vision/simulated/scene_film.py) takes them."""
    import cv2
    from vision.read.lens import charuco_board
    from vision.simulated.camera_model import CameraSetup
    from vision.simulated.scene_film import charuco_shots as shots

    names = []
    setup = CameraSetup(size=(1280, 720), tilt_deg=25, fill=0.6, k1=-0.25, yaw_deg=3.0)
    for k, shot in enumerate(shots(charuco_board(), setup)):
        names.append(f"shot{k}.png")
        cv2.imwrite(str(where / names[-1]), shot.image)
    return names


def demo(w) -> None:
    with w.step() as row:
        done = w.run(["demo-video", "--game", "gyges", "--out", "demo", "--moves", "2"])
        names = ("gyges.avi", "gyges-calibration.npz", "gyges.toml", "gyges-moves.txt")
        missing = [n for n in names if not (w.cwd / "demo" / n).is_file()]
        if missing:
            raise Failed(f"missing {missing}: {done.stdout}")
        w.facts["demo"] = w.cwd / "demo"
        row.detail = done.stdout.splitlines()[0].replace(str(w.cwd) + "/", "")
    with w.step("tableref serve --config demo/gyges.toml") as row:
        w.needs("demo")
        bg = w.start(["serve", "--config", "demo/gyges.toml", "--port", "0"], "serve-demo")
        url = bg.wait_line(r"open (http://\S+/)").group(1)

        def played():
            h = w.get_json(url + "api/health")
            return h if h["game"]["ply"] >= 1 or h["game"]["id"] >= 2 else None

        health = w.poll("a move of the video refereed", played)
        w.stopped(bg)
        row.detail = (f"the camera ({health['source']['state']}) referees the video: game {health['game']['id']} "
                      f"at move {health['game']['ply']}; SIGTERM: exit 0")
    with w.step("tableref calibrate --source demo/gyges.avi --game gyges --out cal.npz --snapshot lock.png") as row:
        w.needs("demo")
        out = json.loads(w.run(["calibrate", "--source", "demo/gyges.avi", "--game", "gyges", "--out", "cal.npz",
                                "--snapshot", "lock.png"]).stdout)
        if not (w.cwd / "cal.npz").is_file() or len(out.get("sheet_corners_px", ())) != 4 \
                or not (w.cwd / "lock.png").read_bytes().startswith(b"\x89PNG"):
            raise Failed(f"{out}")
        w.facts["corners"] = out["sheet_corners_px"]
        # Only the lock is checked: the demo's film shows the pieces from its first frame, so this
        # "empty board" is not one to play with (the demo brings its own calibration).
        row.detail = f"locked on the printed board in the video: cal.npz ({out['mode']}), lock.png, its four corners"
    with w.step("tableref fit-board --game gyges --source demo/gyges.avi --handles …") as row:
        w.needs("corners")
        handles = handles_from(w.facts["corners"])
        out = json.loads(w.run(["fit-board", "--game", "gyges", "--source", "demo/gyges.avi", "--handles", handles,
                                "--out", "board-geometry.json"]).stdout)
        if out.get("handles_off_mm", 99) > 5 or not (w.cwd / "board-geometry.json").is_file():
            raise Failed(f"{out}")
        w.facts["geometry"] = True
        row.detail = f"fitted from the four handles (off by {out['handles_off_mm']} mm): board-geometry.json"
    with w.step("tableref calibrate … --geometry board-geometry.json --out own-cal.npz") as row:
        w.needs("geometry")
        w.run(["calibrate", "--source", "demo/gyges.avi", "--game", "gyges", "--geometry", "board-geometry.json",
               "--out", "own-cal.npz"])
        row.detail = "calibrated through the fitted geometry: own-cal.npz"


def handles_from(corners: list) -> str:
    """The four reference spaces' pixels, as a person would read them off the picture: here from
    the sheet's corners that calibrate printed and the printed sheet's layout."""
    import cv2
    import numpy as np
    from rules import get_game
    from vision.sheets.layout import Sheet

    sheet = Sheet.for_board(get_game("gyges").board())
    w, h = sheet.size
    H = cv2.getPerspectiveTransform(np.float32([[0, 0], [w, 0], [w, h], [0, h]]), np.float32(corners))
    out = []
    for space in ("a6", "f6", "f1", "a1"):
        s = sheet.by_id[space]
        x, y = cv2.perspectiveTransform(np.float32([[[s.x, s.y]]]), H)[0][0]
        out.append(f"{space}={x:.0f},{y:.0f}")
    return ";".join(out)


# -- the club hub

def hub(w) -> None:
    """docs/hub.md's club, small: the users first (mosquitto_passwd), a Mosquitto reading them, the
    hub, two simulated tables publishing through it."""
    mosquitto, passwd = tool("mosquitto"), tool("mosquitto_passwd")
    port = w.free_port()
    users = passwd is not None
    broker = [f'broker = "mqtt://127.0.0.1:{port}"']
    if users:
        broker += ['username = "hub"', 'password_file = "hub-password"']
    (w.cwd / "hub.toml").write_text(
        "[broker]\n" + "\n".join(broker) + '\n\n[data]\ndir = "hubdata"\n\n'
        '[mosquitto]\npassword_file = "mosquitto.passwd"\nacl_file = "mosquitto.acl"\n', encoding="utf-8")
    (w.cwd / "passwords").mkdir(exist_ok=True)
    for name, extra in (("hub", ["--hub", "--out", "hub-password"]),
                        ("table-01", ["--out", "passwords/table-01.password"]),
                        ("table-02", ["--out", "passwords/table-02.password"])):
        with w.step(f"tableref hub credentials add {name} --config hub.toml {' '.join(extra)}") as row:
            if not users:
                raise Skipped("mosquitto_passwd is not installed (sh scripts/ensure-mosquitto installs it)")
            w.run(["hub", "credentials", "add", name, "--config", "hub.toml", *extra])
            acl = (w.cwd / "mosquitto.acl").read_text(encoding="utf-8")
            if not (w.cwd / "mosquitto.passwd").read_text().count(f"{name}:") == 1 or f"user {name}\n" not in acl:
                raise Failed(f"no {name} in mosquitto.passwd and mosquitto.acl")
            row.detail = f"user {name} in mosquitto.passwd, its topics in mosquitto.acl, its password in {extra[-1]}"
    conf = [f"listener {port} 127.0.0.1", "persistence false", f"log_dest file {w.cwd}/mosquitto.log"]
    conf += ["allow_anonymous false", "password_file mosquitto.passwd", "acl_file mosquitto.acl"] if users \
        else ["allow_anonymous true"]
    if os.geteuid() == 0:
        conf.append("user root")  # as root mosquitto would drop to its own user, locked out of the walk's dir
    (w.cwd / "mosquitto.conf").write_text("\n".join(conf) + "\n", encoding="utf-8")
    with w.step("mosquitto -c mosquitto.conf &") as row:
        if mosquitto is None:
            raise Skipped("mosquitto is not installed (sh scripts/ensure-mosquitto installs Debian's package)")
        bg = w.start(["-c", "mosquitto.conf"], "mosquitto", program=mosquitto)
        w.current.command = "mosquitto -c mosquitto.conf &"
        w.poll("mosquitto listening", lambda: _listening(port) or bg.proc.poll() is not None)
        if bg.proc.poll() is not None:
            raise Failed(f"mosquitto exited {bg.proc.returncode}: {_read(str(w.cwd / 'mosquitto.log'))[-300:]}")
        w.facts["broker"] = bg
        row.detail = f"the club's broker on 127.0.0.1:{port}" + (", users and ACL from the files above" if users
                                                               else ", anonymous (no mosquitto_passwd)")
    with w.step("tableref hub --config hub.toml --port 0 &") as row:
        w.needs("broker")
        bg = w.start(["hub", "--config", "hub.toml", "--port", "0"], "hub")
        url = bg.wait_line(r"club page (http://\S+/)").group(1)
        status, _ = w.get(url)
        if status != 200:
            raise Failed(f"GET {url}: HTTP {status}")
        w.facts["hub"], w.facts["hub_url"] = bg, url
        row.detail = f"the club page at {url} (HTTP 200)"
    with w.step("tableref hub simulate --boards 2 --broker mqtt://127.0.0.1:PORT") as row:
        w.needs("hub_url")
        extra = ["--password-dir", "passwords"] if users else []
        done = w.run(["hub", "simulate", "--boards", "2", "--broker", f"mqtt://127.0.0.1:{port}", *extra,
                      "--interval", "0.3", "--duration", "4", "--dir", "club"])
        moves = re.search(r"played (\d+) moves", done.stdout)
        if not moves or int(moves.group(1)) == 0:
            raise Failed(done.stdout.strip()[-200:])

        def both_tables():
            boards = w.get_json(w.facts["hub_url"] + "api/club").get("boards", [])
            return boards if sorted(b["name"] for b in boards if b.get("ply", 0) > 0) == ["table-01", "table-02"] \
                else None

        boards = w.poll("both tables' moves on the hub's /api/club", both_tables)
        row.detail = (f"{moves.group(1)} moves played by table-01 and table-02; the hub shows both "
                      f"(at moves {', '.join(str(b['ply']) for b in boards)})")
    with w.step("kill -TERM <tableref hub>") as row:
        w.needs("hub")
        w.stopped(w.facts.pop("hub"))
        row.detail = "exit 0"
    if "broker" in w.facts:
        w.facts.pop("broker").stop()


def _listening(port: int) -> bool:
    try:
        socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
        return True
    except OSError:
        return False


STEPS = [fresh_clone, serve, serve_computer, run_and_records, config_check, rules, serial, gpio, prints, demo, hub]


def tool(name: str) -> str | None:
    return shutil.which(name) or shutil.which(name, path="/usr/sbin:/usr/local/sbin:/usr/bin")
