"""The club evening's other tables (bench/soak_memory.py): a serial sensor board whose cable is
pulled and replugged now and then, and a camera that gets bumped.

A Pi referees one table from one source, so each table is its own service process, sampled
like the simulated board's (RSS, open files, threads, journal, a page load):

- **serial**: ``tableref serve`` with ``source.kind = "serial"`` on the reference firmware
  (firmware_bridge.BoardSimulator, in the soak's process) behind a pty. The player moves the
  pieces on the board, answers the page's questions as players would, starts a new game and
  sets the pieces back; every few moves the cable is pulled for a random spell, and now and
  then a move is made while it is out (seen when it comes back).
- **camera**: the service (tableref.serve.Service, as ``tableref serve`` builds it from a
  camera config) with a camera feed whose capture plays a filmed game (``tableref demo-video``,
  rendered once and cached) over and over, on the video's own clock run ``--camera-rate``
  times real time. After the last move the camera keeps seeing the final position until the
  page starts a new game, then the pieces are set back; every other game the camera is
  bumped mid-game (the frame shifted by a few dozen pixels, then back the next time).
  The child process is ``python bench/soak_tables.py camera-service ...``.
"""

from __future__ import annotations

import abc
import argparse
import hashlib
import json
import os
import random
import signal
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from http.cookiejar import CookieJar
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.serve_bench import ROOT, free_port
from rules import Fidelity, get_game

PIN = "2468"
GYGES = get_game("gyges")

CACHE = Path("/tmp") / "tableref-soak-cache"  # the filmed game, rendered once per machine
FILM_VERSION = 1  # bump when the film's making changes (the cache is keyed on it)
SHIFT = (24, 14)  # a bump: the camera knocked by this many pixels (and back, the next time)


# -- talking to a table's page ---------------------------------------------------------------------


class Client:
    """One admin's browser on a table's page (cookies, the CSRF token, the PIN once set)."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(CookieJar()))
        self.token = self.get("/api/session")["csrf"]

    def get(self, path: str) -> dict:
        with self.opener.open(self.url + path, timeout=10) as r:
            return json.load(r)

    def post(self, path: str, body: dict | None = None) -> int:
        req = urllib.request.Request(self.url + path, data=json.dumps(body or {}).encode(), method="POST",
                                     headers={"Content-Type": "application/json", "X-CSRF-Token": self.token})
        try:
            with self.opener.open(req, timeout=10) as r:
                return r.status
        except urllib.error.HTTPError as exc:
            return exc.code


def wait_until(client: Client, ok: Any, timeout: float = 5.0) -> dict | None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        snap = client.get("/api/state")
        if ok(snap):
            return snap
        time.sleep(0.05)
    return None


def simple_moves(state: Any) -> list[tuple[Any, str, str]]:
    """The one-step moves (a piece from one space to an empty one): (move, from, to)."""
    out = []
    for m in state.legal_moves():
        text = state.move_text(m)
        if text.count("-") == 1 and "/" not in text and "@" not in text:
            a, b = text.split("-")
            out.append((m, a, b))
    return out


class Table(abc.ABC):
    """One table of the evening: its service process, the player at it, what the page showed
    of each game (``seen``), and the samples taken of the process."""

    name = "table"

    def __init__(self, work: Path, *, game_length: int, seed: int) -> None:
        self.work = work / self.name
        self.work.mkdir(parents=True, exist_ok=True)
        self.journal = self.work / "journal.sqlite3"
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.game_length = game_length
        self.rng = random.Random(seed)
        self.proc: subprocess.Popen | None = None
        self.client: Client | None = None
        self.seen: dict[int, list[str]] = {}
        self.moves = 0
        self.games = 1
        self.counts: dict[str, int] = {}  # what happened at the table, by name
        self.errors: list[str] = []
        self.samples: list[Any] = []
        self.trace: Path | None = None  # where the service's tracemalloc snapshots go (--trace)

    def tableref(self, *args: str) -> list[str]:
        """``python -m tableref ARGS``, under :func:`traced` when tracing."""
        if self.trace is None:
            return [sys.executable, "-m", "tableref", *args]
        return [sys.executable, str(Path(__file__).resolve().with_name("soak_trace.py")), str(self.trace / self.name),
                *args]

    def snapshot_memory(self) -> None:
        if self.trace is not None and self.proc is not None:
            self.proc.send_signal(signal.SIGUSR1)

    def count(self, what: str, n: int = 1) -> None:
        self.counts[what] = self.counts.get(what, 0) + n

    @abc.abstractmethod
    def command(self) -> list[str]:
        """The service's command line (each table its own source)."""

    def start(self) -> None:
        env = {"PYTHONPATH": str(ROOT), "HOME": str(self.work), "PATH": "/usr/bin:/bin"}
        # glibc's, as a unit file sets (MALLOC_*, GLIBC_TUNABLES); and soak_trace's choice of tracemalloc or counts only
        env.update({k: v for k, v in os.environ.items()
                    if k.startswith("MALLOC_") or k in ("GLIBC_TUNABLES", "SOAK_TRACEMALLOC")})
        self.proc = subprocess.Popen(self.command(), cwd=self.work, stdout=subprocess.DEVNULL,
                                     stderr=(self.work / "stderr.log").open("wb"), env=env)
        for _ in range(300):
            try:
                self.client = Client(self.url)
                break
            except OSError:
                if self.proc.poll() is not None:
                    break
                time.sleep(0.1)
        else:
            raise SystemExit(f"{self.name}: the service did not answer")
        if self.client is None:
            raise SystemExit(f"{self.name}: the service ended: {(self.work / 'stderr.log').read_text()[-2000:]}")
        assert self.client.post("/api/pin", {"pin": PIN}) == 200

    def play(self, stop: threading.Event, rate: float) -> None:
        while not stop.is_set():
            try:
                self.step()
            except (OSError, ValueError, KeyError) as exc:  # the page did not answer: noted, play on
                self.errors.append(f"{type(exc).__name__}: {exc}")
                time.sleep(0.5)
            stop.wait(1 / rate)

    def state(self) -> dict:
        assert self.client is not None
        snap = self.client.get("/api/state")
        self.seen[snap["game_id"]] = list(snap["moves"])  # what the page showed of each game, last
        return snap

    @abc.abstractmethod
    def step(self) -> None:
        """One move of play at this table (and its faults: a cable pulled, a camera bumped)."""

    def new_game(self, snap: dict) -> None:
        assert self.client is not None
        self.client.post("/api/new-game", {"game": "gyges", "setup": "default"})
        self.games += 1
        wait_until(self.client, lambda s, gid=snap["game_id"]: s["game_id"] != gid)

    def lost(self) -> list[int]:
        """The games whose journalled moves are not what the page last showed of them."""
        assert self.client is not None
        for _ in range(20):  # a table still playing (the camera) may move on between two reads
            before = self.state()
            current = self.client.get(f"/api/journal/{before['game_id']}")["moves"]
            if self.state()["moves"] == before["moves"]:
                break
        journalled = {gid: self.client.get(f"/api/journal/{gid}")["moves"] for gid in self.seen
                      if gid != before["game_id"]}
        journalled[before["game_id"]] = current
        return [gid for gid, shown in self.seen.items() if journalled[gid] != shown]

    def wrong(self) -> list[int]:
        """The games refereed otherwise than they were played (where the table knows)."""
        return []

    def stop(self) -> None:
        if self.proc is not None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)


class SimTable(Table):
    """The simulated board the page edits (``tableref serve``'s default), moved through its API."""

    name = "sim"

    def command(self) -> list[str]:
        return self.tableref("serve", "--port", str(self.port), "--journal", str(self.journal))

    def set_right(self) -> None:
        """Put the board back to the game's position and wait until the referee has seen it."""
        assert self.client is not None
        self.client.post("/api/sim/reset")
        wait_until(self.client, lambda s: s["board_status"]["kind"] == "ok")

    def step(self) -> None:
        client = self.client
        assert client is not None
        snap = self.state()
        choices = simple_moves(GYGES.from_dict(snap["position"]))
        if snap["ply"] >= self.game_length or not choices or snap["outcome"]:
            self.new_game(snap)
        elif snap["ply"] and self.rng.random() < 0.05:
            client.post("/api/undo")
            wait_until(client, lambda s, ply=snap["ply"]: s["ply"] < ply)
            self.count("undos")
            self.set_right()
        else:
            _, a, b = self.rng.choice(choices)
            client.post("/api/sim/move", {"space": a, "to": b})
            after = wait_until(client, lambda s, ply=snap["ply"]: s["ply"] != ply
                               or s["board_status"]["kind"] in ("illegal", "ambiguous"))
            if after is not None and after["ply"] != snap["ply"]:
                self.moves += 1
            else:  # judged otherwise: set right
                self.set_right()


class SerialTable(Table):
    """``tableref serve`` on the reference firmware behind a pty; the cable pulled every
    ``pull_every`` moves or so, for 0.3-1.5 s, a move made during every other outage."""

    name = "serial"

    def __init__(self, work: Path, *, game_length: int, seed: int, pull_every: int = 6) -> None:
        super().__init__(work, game_length=game_length, seed=seed)
        self.pull_every = pull_every
        self.board: Any = None
        self._since_pull = 0

    def command(self) -> list[str]:
        self.board = start_board(seed=5)
        cfg = serial_config(self.work, self.board.device_path)
        return self.tableref("serve", "--config", str(cfg), "--port", str(self.port), "--journal",
                             str(self.journal), "--settle", "0.3")

    def put(self, state: Any) -> None:
        self.board.set_view(state.view(Fidelity.OCCUPANCY))

    def decided(self, snap: dict, move: Any, timeout: float = 5.0) -> None:
        """Wait for the move's decision; answer a question as the players would (the move they
        made: a reed board cannot tell which piece moved); set the pieces right if the board
        was judged otherwise."""
        client = self.client
        assert client is not None
        state = GYGES.from_dict(snap["position"])
        after = wait_until(client, lambda s: s["ply"] != snap["ply"] or s["question"]
                           or s["board_status"]["kind"] in ("illegal",), timeout)
        if after is not None and after["question"]:
            self.count("questions")
            text = state.move_text(move)
            number = next((c["number"] for c in after["question"] if c.get("text") == text), None)
            if number is None:
                self.count("questions without the move made")
                number = next((c["number"] for c in after["question"] if not c.get("takeback")), 1)
            client.post("/api/confirm", {"number": number})
            after = wait_until(client, lambda s: s["ply"] != snap["ply"], timeout)
        if after is not None and after["ply"] != snap["ply"]:
            self.moves += 1
            return
        self.count("set right")
        self.put(state)
        wait_until(client, lambda s: s["board_status"]["kind"] == "ok" and s["source"]["status"] == "steady", timeout)

    def step(self) -> None:
        client = self.client
        assert client is not None
        snap = self.state()
        state = GYGES.from_dict(snap["position"])
        choices = simple_moves(state)
        if snap["ply"] >= self.game_length or not choices or snap["outcome"]:
            self.new_game(snap)
            self.put(GYGES.default_setup())  # the players set the pieces back
            wait_until(client, lambda s: s["board_status"]["kind"] == "ok" and s["source"]["status"] == "steady")
            return
        move = self.rng.choice(choices)[0]
        if self._since_pull < self.pull_every:
            self._since_pull += 1
            self.put(state.successor(move))
            self.decided(snap, move)
            return
        # The cable pulled: the page must say the board is lost, and carry on once it is back.
        self._since_pull = 0
        spell = self.rng.uniform(0.3, 1.5)
        self.board.unplug(spell)
        self.count("pulls")
        if wait_until(client, lambda s: s["source"]["status"] == "lost", spell + 3):
            self.count("pulls the page showed")
        moved = self.rng.random() < 0.5
        if moved:  # the players carry on while it is out: the move is seen once it is back
            self.put(state.successor(move))
            self.count("moves made with the cable out")
        if wait_until(client, lambda s: s["source"]["status"] == "steady", spell + 10) is None:
            self.errors.append(f"the board did not come back after a {spell:.1f} s pull")
        if moved:
            self.decided(snap, move, timeout=10)

    def stop(self) -> None:
        super().stop()
        if self.board is not None:
            self.board.close()


class CameraTable(Table):
    """The camera service (:func:`camera_service`) playing the filmed game again and again;
    the player starts a new game once the page has every filmed move."""

    name = "camera"

    def __init__(self, work: Path, *, game_length: int, seed: int, rate: float = 2.0) -> None:
        super().__init__(work, game_length=game_length, seed=seed)
        self.rate = rate
        self.config, self.texts = filmed_game(game_length)
        self.bumps = self.work / "bumps.txt"
        self._progress = (0, 0, time.monotonic())  # game, ply, since

    def command(self) -> list[str]:
        return [sys.executable, str(Path(__file__).resolve()), "camera-service", "--config", str(self.config),
                "--journal", str(self.journal), "--port", str(self.port), "--rate", str(self.rate),
                "--bumps", str(self.bumps)] + (["--trace", str(self.trace / self.name)] if self.trace else [])

    def step(self) -> None:
        snap = self.state()
        if snap["source"]["status"] != "steady":
            self.count("looks at a frozen or settling camera")
        key = (snap["game_id"], snap["ply"])
        if key != self._progress[:2]:
            self.moves += max(0, snap["ply"] - self._progress[1]) if key[0] == self._progress[0] else snap["ply"]
            self._progress = (*key, time.monotonic())
        if snap["ply"] >= len(self.texts) or snap["outcome"]:
            self.new_game(snap)
        elif time.monotonic() - self._progress[2] > 120:  # a game that stopped: noted, the next one begun
            self.errors.append(f"game {snap['game_id']} stuck at ply {snap['ply']}")
            self.new_game(snap)

    def bumped(self) -> int:
        return len(self.bumps.read_text().splitlines()) if self.bumps.exists() else 0

    def wrong(self) -> list[int]:
        """Every game refereed exactly as filmed (the last one so far: a beginning of it)."""
        last = max(self.seen)
        return [gid for gid, moves in self.seen.items()
                if moves != (self.texts[:len(moves)] if gid == last else self.texts)]


# -- the serial table's board --------------------------------------------------------------------


def serial_config(work: Path, device: Path) -> Path:
    cfg = work / "serial.toml"
    cfg.write_text(f'[game]\nname = "gyges"\n\n[source]\nkind = "serial"\n\n[source.serial]\nport = "{device}"\n\n'
                   f'[data]\ndir = "{work / "serial-data"}"\n', encoding="utf-8")
    return cfg


def start_board(seed: int) -> Any:
    """The reference firmware on a pty, its pieces at Gygès's start."""
    from firmware_bridge.simulator import BoardSimulator
    from firmware_bridge.wiring import Wiring

    sim = BoardSimulator(Wiring.builtin("gyges"), seed=seed)
    sim.set_view(get_game("gyges").default_setup().view(Fidelity.OCCUPANCY))
    return sim.start()


# -- the camera table's film -------------------------------------------------------------------------


def filmed_game(moves: int, seed: int = 1) -> tuple[Path, list[str]]:
    """``tableref demo-video`` of a Gygès game (cached): its config file and the moves it shows."""
    key = hashlib.sha1(f"gyges {moves} {seed} {FILM_VERSION}".encode()).hexdigest()[:10]
    out = CACHE / key
    config = out / "gyges.toml"
    if not config.exists():
        out.mkdir(parents=True, exist_ok=True)
        subprocess.run([sys.executable, "-m", "tableref", "demo-video", "--game", "gyges", "--out", str(out),
                        "--moves", str(moves), "--seed", str(seed)], check=True, stdout=subprocess.DEVNULL,
                       cwd=Path(__file__).resolve().parents[1])
    return config, (out / "gyges-moves.txt").read_text(encoding="utf-8").split()


class EveningCamera:
    """A capture (vision.camera.capture's protocol) over a club evening at one table: the filmed game
    again and again. ``game_id()`` is the page's game (None before the service runs): the final
    position is held until it changes (the players look at the result, press new game, set
    the pieces back). Frames are stamped on the video's clock; ``rate``: how many times real time
    they come. ``bumps``: a file the bumps are logged to, one line each."""

    name = "evening camera"

    def __init__(self, video: Path, game_id: Any, *, rate: float, bump_every: int = 2, seed: int = 3,
                 bumps: Path | None = None, hold_limit: float = 120.0) -> None:
        self.video, self.game_id, self.rate = video, game_id, rate
        self.bump_every, self.bumps_log, self.hold_limit = bump_every, bumps, hold_limit
        self.bumps = 0
        self._rng = random.Random(seed)
        self._cap: Any = None
        self._fps = 10.0
        self._count = 0  # frames given: the video clock
        self._wall0 = 0.0
        self._loop = 0
        self._frame = 0  # within this loop's film
        self._length = 0
        self._bump_at = -1
        self._shift = (0, 0)
        self._last: Any = None
        self._holding_since: float | None = None
        self._game: int | None = None  # the page's game when this loop of the film began

    def start(self) -> None:
        import cv2

        if self._cap is None:
            self._cap = cv2.VideoCapture(str(self.video))
            if not self._cap.isOpened():
                raise OSError(f"{self.video}: cannot open the film")
            self._fps = self._cap.get(cv2.CAP_PROP_FPS) or 10.0
            self._length = int(self._cap.get(cv2.CAP_PROP_FRAME_COUNT))
            self._wall0 = time.monotonic()
            self._plan_loop()

    def _plan_loop(self) -> None:
        bumped = self._loop % self.bump_every == self.bump_every - 1
        self._bump_at = self._rng.randrange(self._length // 4, 3 * self._length // 4) if bumped else -1
        self._game = self.game_id()

    def read(self) -> Any:
        import cv2
        import numpy as np

        from vision.camera.capture import CapturedFrame

        self.start()
        if self._game is None:
            self._game = self.game_id()
        t = self._count / self._fps
        wait = self._wall0 + t / self.rate - time.monotonic()
        if wait > 0:
            time.sleep(wait)
        if self._holding_since is None:
            ok, img = self._cap.read()
            if ok and img is not None:
                self._frame += 1
                if self._frame == self._bump_at:
                    self._shift = (0, 0) if self._shift != (0, 0) else SHIFT
                    self.bumps += 1
                    if self.bumps_log is not None:
                        with self.bumps_log.open("a", encoding="utf-8") as f:
                            f.write(f"{t:.1f} {self._shift}\n")
                if self._shift != (0, 0):
                    m = np.float32([[1, 0, self._shift[0]], [0, 1, self._shift[1]]])
                    img = cv2.warpAffine(img, m, (img.shape[1], img.shape[0]), borderMode=cv2.BORDER_REPLICATE)
                self._last = img
            else:  # the film's end: the final position stays on the table
                self._holding_since = t
        if self._holding_since is not None and (self.game_id() != self._game or t - self._holding_since > self.hold_limit):
            self._holding_since = None  # the pieces are set back: the film again, from its start
            self._cap.set(cv2.CAP_PROP_POS_FRAMES, 0)
            self._loop += 1
            self._frame = 0
            self._plan_loop()
        self._count += 1
        return CapturedFrame(self._last, t)

    def close(self) -> None:
        cap, self._cap = self._cap, None
        if cap is not None:
            cap.release()


def camera_service(argv: list[str]) -> int:
    """The camera table's service process: ``tableref serve``'s Service on the film's config,
    with an :class:`EveningCamera` as its capture; serves until SIGTERM."""
    import signal
    from dataclasses import replace

    from tableref.config import DataConfig, load_config
    from tableref.malloc_tuning import tune_malloc
    from tableref.serve import Service
    from tableref.service import CameraFeed, open_feed

    ap = argparse.ArgumentParser(prog="soak_tables.py camera-service")
    ap.add_argument("--config", type=Path, required=True)
    ap.add_argument("--journal", type=Path, required=True)
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--rate", type=float, default=2.0)
    ap.add_argument("--bumps", type=Path, required=True)
    ap.add_argument("--trace", type=Path, default=None, help="tracemalloc snapshots on SIGUSR1, into this directory")
    args = ap.parse_args(argv)
    if args.trace is not None:
        from bench.soak_trace import install

        install(args.trace)
    tune_malloc()  # as tableref serve does, before any thread
    config = load_config(args.config)
    config = replace(config, data=DataConfig(dir=args.journal.parent, journal=args.journal))
    filmed = open_feed(config.source, config.game.name)  # the reader and lock, as tableref serve makes them
    holder: dict[str, Any] = {}

    def game_id() -> int | None:
        service = holder.get("service")
        referee = service.referee if service is not None else None
        return referee.record.id if referee is not None else None

    camera = EveningCamera(Path(str(config.source.device)), game_id, rate=args.rate, bumps=args.bumps)
    feed = CameraFeed(camera, filmed.camera.reader, fidelity=filmed.fidelity, name=camera.name,
                      lock=filmed.camera.lock, spec=filmed.spec)
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    service = Service.from_config(config, admin_path=args.journal.with_name("camera-admin.json"), feed=feed)
    holder["service"] = service  # read by the camera's thread once the referee exists
    with service:
        service.serve_http("127.0.0.1", args.port)
        stop.wait()
    return 0


if __name__ == "__main__":
    if sys.argv[1:2] == ["camera-service"]:
        raise SystemExit(camera_service(sys.argv[2:]))
    raise SystemExit("usage: soak_tables.py camera-service --config F --journal J --port P --bumps F [--rate R]")
