"""The club hub under load: simulated boards through a real Mosquitto to ``tableref hub``.

    .venv/bin/python bench/hub_bench.py [--boards 200] [--interval 5] [--duration 30]
                                        [--spectators 500] [--ramp 1,0.5,0.25] [--quick]

Starts its own mosquitto on a free 127.0.0.1 port and ``python -m tableref hub`` as a process,
then ``--boards`` simulated tables (``tableref hub simulate``: a real journal, referee and MQTT
publisher each; 50 tables a process, journals on tmpfs) playing Anacund, a move every
``--interval`` s on average.
Measured:

* latency from a move's commit in a board's journal to the event reaching a browser-like
  SSE client of the club page (``/api/events``; each event carries the commit times of the
  moves it reports): p50/p99/max, for one watcher, and over ``--spectators`` streams held
  open at once by a second process (asyncio), while the boards play;
* the hub's resident memory (VmRSS, VmHWM) and thread count during the run;
* the hub's CPU time (user + system, from /proc) per move, and the machine's load average;
* the ramp: the same with the boards moving every 1, 0.5, 0.25 s… (``--ramp``), the spectators'
  streams open (``--ramp-spectators``), until p99 passes 1 s — the last step under it is the
  rate the hub sustains (moves/s; each move is two messages in, its journal event and the
  live snapshot, and one acknowledgement out).

Targets (issue 18): p99 ≤ 250 ms at 200 boards × a move per 5 s; hub RSS ≤ 300 MB; 500
spectators with bounded threads and memory. Figures: docs/scale.md.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.serve_bench import free_port, proc_status  # noqa: E402


def start_broker(directory: Path) -> tuple[subprocess.Popen, int]:
    exe = shutil.which("mosquitto") or shutil.which("mosquitto", path="/usr/sbin")
    if exe is None:
        sys.exit("hub_bench: mosquitto is not installed (sh scripts/ensure-mosquitto)")
    port = free_port()
    conf = directory / "mosquitto.conf"
    conf.write_text(f"listener {port} 127.0.0.1\nallow_anonymous true\nmax_queued_messages 100000\n"
                    + ("user root\n" if os.geteuid() == 0 else ""))
    proc = subprocess.Popen([exe, "-c", str(conf)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for _ in range(100):
        try:
            socket.create_connection(("127.0.0.1", port), 0.2).close()
            return proc, port
        except OSError:
            time.sleep(0.05)
    sys.exit("hub_bench: mosquitto did not start")


def cpu_seconds(pid: int) -> float:
    """A process's user + system CPU time so far, from ``/proc/PID/stat``."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def sampled_hub(out: Path, argv: list[str]) -> int:
    """``tableref hub`` with a sampling profiler: every 5 ms, the innermost frames of each of
    its threads; at exit, into ``out``: each thread's CPU time (from /proc: what it cost, C code
    included) and where its Python time went (self and inclusive, per function; a thread
    waiting counts where it waits)."""
    from collections import Counter

    from tableref.cli import main as tableref_main

    own, inclusive, stop = Counter(), Counter(), threading.Event()
    me = threading.get_ident()

    cpu: dict[str, float] = {}  # thread → CPU seconds, read while it runs (a thread ended is gone from /proc)

    def thread_cpu() -> None:
        native = {t.native_id: t.name for t in threading.enumerate()}
        for task in Path("/proc/self/task").iterdir():
            try:
                fields = (task / "stat").read_text().rsplit(")", 1)[1].split()
                name = native.get(int(task.name)) or (task / "comm").read_text().strip()
            except OSError:
                continue
            cpu[f"{name} ({task.name})"] = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def sample() -> None:
        names = {}
        n = 0
        while not stop.wait(0.005):
            n += 1
            if n % 200 == 0:
                thread_cpu()
            names.update({t.ident: t.name for t in threading.enumerate()})
            for ident, frame in sys._current_frames().items():
                if ident == me:
                    continue
                seen, f, depth = set(), frame, 0
                own[(names.get(ident, "?"), _where(frame))] += 1
                while f is not None and depth < 40:
                    key = (names.get(ident, "?"), _where(f))
                    if key not in seen:
                        inclusive[key] += 1
                        seen.add(key)
                    f, depth = f.f_back, depth + 1

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    me = sampler.ident
    try:
        return tableref_main(["hub", *argv])
    finally:
        stop.set()
        sampler.join()
        total = sum(own.values()) or 1
        lines = ["CPU seconds per thread (user + system; the sampler's own included):"]
        lines += [f"{v:8.2f}  {k}" for k, v in sorted(cpu.items(), key=lambda kv: -kv[1])]
        lines += ["", "self % (thread, function):"]
        lines += [f"{n / total * 100:6.1f}  {t:<12} {w}" for (t, w), n in own.most_common(40)]
        lines += ["", "inclusive % (thread, function):"]
        lines += [f"{n / total * 100:6.1f}  {t:<12} {w}" for (t, w), n in inclusive.most_common(60)]
        out.write_text("\n".join(lines) + "\n")


def _where(frame: Any) -> str:
    code = frame.f_code
    return f"{Path(code.co_filename).name}:{code.co_name}"


def start_hub(directory: Path, broker_port: int, profile: Path | None = None) -> tuple[subprocess.Popen, str]:
    cfg = directory / "hub.toml"
    cfg.write_text(f'[broker]\nbroker = "mqtt://127.0.0.1:{broker_port}"\n[data]\ndir = "{directory}/hub"\n'
                   f'[web]\nport = {free_port()}\nthreads = 16\n[event]\nname = "Bench night"\n')
    command = ([sys.executable, __file__, "--sampled-hub", str(profile), "--config", str(cfg)] if profile
               else [sys.executable, "-m", "tableref", "hub", "--config", str(cfg)])
    proc = subprocess.Popen(command, cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            env={**os.environ, "PYTHONUNBUFFERED": "1"})
    seen = ""
    for line in proc.stdout:  # its log lines (the broker link) may come first
        seen += line
        if "club page" in line:
            break
    else:
        sys.exit(f"hub_bench: the hub did not start: {seen}")
    threading.Thread(target=proc.stdout.read, daemon=True).start()  # keep its pipe drained
    return proc, line.rsplit(" ", 1)[-1].strip()


class Watcher(threading.Thread):
    """One browser-like SSE client: the latency of every commit reported to it."""

    def __init__(self, url: str) -> None:
        super().__init__(daemon=True)
        self.url, self.latencies, self.stop = url, [], threading.Event()

    def run(self) -> None:
        with urllib.request.urlopen(self.url + "api/events", timeout=30) as r:
            kind = None
            for raw in r:
                if self.stop.is_set():
                    return
                line = raw.decode().rstrip("\n")
                if line.startswith("event: "):
                    kind = line[7:]
                elif line.startswith("data: ") and kind == "boards":
                    now = time.time()
                    self.latencies.extend(now - c for c in _commits(line))


def _commits(line: str) -> list[float]:
    """The commit times at the head of a boards event, without parsing the tables (500
    spectators in one process must not be slower than the hub they measure)."""
    head = line[6:line.find("]") + 1] + "}"
    return json.loads(head).get("commits", [])


async def _spectate(url: str, n: int, seconds: float, out: Path) -> None:
    """``n`` SSE streams held open at once; latencies of every commit each receives."""
    host, port = url.split("//")[1].rstrip("/").split(":")
    lat: list[float] = []
    opened = 0

    async def one() -> None:
        nonlocal opened
        reader, writer = await asyncio.open_connection(host, int(port), limit=2 ** 22)
        writer.write(f"GET /api/events HTTP/1.1\r\nHost: {host}\r\nAccept: text/event-stream\r\n\r\n".encode())
        await writer.drain()
        opened += 1
        kind = None
        end = time.monotonic() + seconds
        try:
            while time.monotonic() < end:
                try:
                    raw = await asyncio.wait_for(reader.readline(), max(0.1, end - time.monotonic()))
                except asyncio.TimeoutError:
                    break
                if not raw:
                    break
                line = raw.decode(errors="replace").rstrip("\r\n")
                if line.startswith("event: "):
                    kind = line[7:]
                elif line.startswith("data: ") and kind == "boards":
                    now = time.time()
                    lat.extend(now - c for c in _commits(line))
        finally:
            writer.close()

    results = await asyncio.gather(*(one() for _ in range(n)), return_exceptions=True)
    errors = [repr(r) for r in results if isinstance(r, Exception)]
    out.write_text(json.dumps({"opened": opened, "errors": errors[:5], "n_errors": len(errors), "latencies": lat}))


def flood(port: int, boards: int, rate: float, seconds: float, first: int, out: Path) -> None:
    """The hub's own ceiling (``--flood``): ``boards`` tables' journal events and live snapshots
    published straight through paho at ``rate`` moves/s in all, each stamped with its publish
    time as its commit time — no referee or journal behind them, so the load generator is light
    and the hub, not the simulators, runs out first. Writes the moves sent to ``out``."""
    import random

    import paho.mqtt.client as mqtt

    from rules import get_game
    from tableref.hub.protocol import GameEvent, GameHeader, Live, encode, topic

    game = get_game("anacund")
    start = game.default_setup(game.parse_options({}))
    position = start.to_dict()
    names = [f"flood-{first + i:05d}" for i in range(boards)]
    client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=f"flood-{first}")
    client.max_inflight_messages_set(1000)
    client.max_queued_messages_set(0)
    client.connect("127.0.0.1", port)
    client.loop_start()
    now = time.time()
    for name in names:
        client.publish(topic(name, "journal"), encode(GameHeader(1, "anacund", {}, "kind", position, now)), qos=1)
    seq = dict.fromkeys(names, 0)
    rng = random.Random(first)
    sent, t0 = 0, time.monotonic()
    while time.monotonic() - t0 < seconds:
        wait = t0 + sent / rate - time.monotonic()
        if wait > 0:
            time.sleep(wait)
        name = names[rng.randrange(boards)]
        now = time.time()
        client.publish(topic(name, "journal"), encode(GameEvent(1, seq[name], "move", "t1", position, now)), qos=1)
        client.publish(topic(name, "live"), encode(Live(1, "anacund", seq[name] + 1, position, "ok", "t1", None, {},
                                                        now)), qos=0, retain=True)
        seq[name] += 1
        sent += 1
    time.sleep(2.0)
    client.loop_stop()
    client.disconnect()
    out.write_text(str(sent))


def pct(values: list[float], p: float) -> float:
    if not values:
        return float("nan")
    values = sorted(values)
    return values[min(len(values) - 1, int(p / 100 * len(values)))]


def ms(values: list[float]) -> str:
    return f"p50 {pct(values, 50) * 1000:6.0f} ms  p99 {pct(values, 99) * 1000:6.0f} ms  " \
           f"max {max(values) * 1000 if values else float('nan'):6.0f} ms  (n={len(values)})"


PER_PROCESS = 50  # simulated tables per process (paho's select() stops at descriptor 1023)
_STEPS = itertools.count()


def run_step(url: str, hub: subprocess.Popen, port: int, directory: Path, boards: int, interval: float,
             duration: float, spectators: int, flood_rate: float = 0.0) -> dict:
    watcher = Watcher(url)
    watcher.start()
    spec = None
    spec_out = directory / f"spectators-{interval}.json"
    if spectators:
        spec = subprocess.Popen([sys.executable, __file__, "--spectate", url, str(spectators), str(duration + 25),
                                 str(spec_out)], cwd=ROOT)
    samples: list[dict] = []
    stop = threading.Event()

    def sample() -> None:
        while not stop.wait(1.0):
            samples.append(proc_status(hub.pid))
    threading.Thread(target=sample, daemon=True).start()
    time.sleep(1.0)  # the streams open
    # Journals on tmpfs where there is one: the boards' fsyncs are each Pi's own, not the bench's.
    where = Path("/dev/shm") if Path("/dev/shm").is_dir() else directory
    journals = Path(tempfile.mkdtemp(dir=where, prefix="hub-bench-"))
    sims = []
    # Each step's tables are new boards (new journals): new names too, as a hub keys games by
    # (board, game) and a board's journal is never replaced under the same name (docs/hub.md).
    offset = 1000 * next(_STEPS)
    cpu0, load0 = cpu_seconds(hub.pid), os.getloadavg()[0]
    for first in range(1, boards + 1, PER_PROCESS) if flood_rate else ():
        sims.append(subprocess.Popen([sys.executable, __file__, "--flood", str(port), str(PER_PROCESS),
                                      str(flood_rate * PER_PROCESS / boards), str(duration), str(first + offset),
                                      str(journals / f"flood-{first}")], cwd=ROOT))
    for first in range(1, boards + 1, PER_PROCESS) if not flood_rate else ():
        n = min(PER_PROCESS, boards - first + 1)
        sims.append(subprocess.Popen(
            [sys.executable, "-m", "tableref", "hub", "simulate", "--boards", str(n), "--first", str(first + offset),
             "--broker", f"mqtt://127.0.0.1:{port}", "--interval", str(interval), "--duration", str(duration),
             "--dir", str(journals / f"p{first}")], cwd=ROOT, stdout=subprocess.PIPE, text=True))
    played = 0
    for p in sims if flood_rate else ():
        p.wait(duration + 120)
    played += sum(int(f.read_text()) for f in journals.glob("flood-*"))
    for p in sims if not flood_rate else ():
        out_text = p.communicate(timeout=duration + 120)[0]
        for line in out_text.splitlines():
            if "played" in line:
                played += int(line.split("played ")[1].split()[0])
    elapsed = duration
    # Every move played must reach the watcher: the latency counts the backlog too.
    deadline = time.monotonic() + 60
    while len(watcher.latencies) < played and time.monotonic() < deadline:
        time.sleep(0.2)
    time.sleep(1.0)
    cpu = cpu_seconds(hub.pid) - cpu0
    shutil.rmtree(journals, ignore_errors=True)
    stop.set()
    watcher.stop.set()
    out = {"interval": interval, "boards": boards, "seconds": elapsed, "watcher": list(watcher.latencies),
           "missing": max(0, played - len(watcher.latencies)),
           "rss": max((s.get("VmRSS", 0) for s in samples), default=0),
           "hwm": max((s.get("VmHWM", 0) for s in samples), default=0),
           "threads": max((s.get("Threads", 0) for s in samples), default=0),
           "cpu": cpu, "load": (load0, os.getloadavg()[0])}
    if spec is not None:
        spec.wait(duration + 60)
        out["spectators"] = json.loads(spec_out.read_text())
    with urllib.request.urlopen(url + "api/club", timeout=10) as r:
        out["counters"] = json.load(r)["counters"]
    out["played"], out["rate"] = played, played / elapsed if elapsed else 0
    return out


def main() -> int:
    if len(sys.argv) > 2 and sys.argv[1] == "--sampled-hub":
        return sampled_hub(Path(sys.argv[2]), sys.argv[3:])
    if len(sys.argv) > 1 and sys.argv[1] == "--flood":
        port, boards, rate, seconds, first, out = sys.argv[2:8]
        flood(int(port), int(boards), float(rate), float(seconds), int(first), Path(out))
        return 0
    if len(sys.argv) > 1 and sys.argv[1] == "--spectate":
        url, n, seconds, out = sys.argv[2], int(sys.argv[3]), float(sys.argv[4]), Path(sys.argv[5])
        try:  # the spectators' own client as light as it can be: it shares the cores with the hub
            import uvloop
            uvloop.run(_spectate(url, n, seconds, out))
        except ImportError:
            asyncio.run(_spectate(url, n, seconds, out))
        return 0
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # stopped: the broker and the hub go too
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--boards", type=int, default=200)
    ap.add_argument("--interval", type=float, default=5.0)
    ap.add_argument("--duration", type=float, default=30.0)
    ap.add_argument("--spectators", type=int, default=500)
    ap.add_argument("--ramp", default="1,0.5,0.25", help="further intervals to try until p99 > 1 s ('' for none)")
    ap.add_argument("--ramp-spectators", type=int, default=None, help="streams open during the ramp "
                    "(default: --spectators)")
    ap.add_argument("--quick", action="store_true", help="15 s steps, ramp 1,0.5")
    ap.add_argument("--flood", default="", help="after the ramp, the hub's own ceiling: moves/s in all from a "
                    "light publisher (no referee, no journal), e.g. 400,800,1600, until p99 > 1 s")
    ap.add_argument("--profile", type=Path, help="sample the hub's threads every 5 ms; where the time went, to this file")
    args = ap.parse_args()
    if args.quick:
        args.duration, args.ramp = 15.0, "1,0.5"
    directory = Path(tempfile.mkdtemp(prefix="hub-bench-"))
    broker, port = start_broker(directory)
    hub, url = start_hub(directory, port, args.profile)
    try:
        print(f"hub bench: {args.boards} boards through mosquitto :{port} to {url}", flush=True)
        base = run_step(url, hub, port, directory, args.boards, args.interval, args.duration, args.spectators)
        moves = base["played"]
        print(f"\n{args.boards} boards, a move every {args.interval:g} s each ({moves} moves in "
              f"{base['seconds']:.0f} s = {base['rate']:.1f}/s)")
        print(f"  commit → SSE, one watcher:        {ms(base['watcher'])}   target p99 ≤ 250 ms"
              + (f"  ({base['missing']} moves never reached it)" if base["missing"] else ""))
        if "spectators" in base:
            s = base["spectators"]
            print(f"  commit → SSE, {s['opened']} spectators:   {ms(s['latencies'])}   errors {s['n_errors']}")
        print(f"  hub RSS {base['rss']:.0f} MB (peak {base['hwm']:.0f} MB; target ≤ 300), threads {base['threads']}")
        print(f"  hub CPU {base['cpu']:.1f} s = {base['cpu'] / max(base['played'], 1) * 1000:.2f} ms per move; "
              f"load average {base['load'][0]:.1f} → {base['load'][1]:.1f} (2 cores, shared)")
        print(f"  hub counters: {base['counters']}")
        sustained, p99_passed = base["rate"], False
        spectators = args.spectators if args.ramp_spectators is None else args.ramp_spectators
        for step in [float(x) for x in args.ramp.split(",") if x.strip()]:
            r = run_step(url, hub, port, directory, args.boards, step, args.duration, spectators)
            p99 = pct(r["watcher"], 99)
            late = f"  {r['missing']} of {r['played']} moves not there 60 s after the end" if r["missing"] else ""
            print(f"  ramp: a move every {step:g} s, {spectators} spectators: {r['rate']:.0f} moves/s  "
                  f"{ms(r['watcher'])}  RSS {r['rss']:.0f} MB threads {r['threads']}  "
                  f"CPU {r['cpu'] / max(r['played'], 1) * 1000:.2f} ms/move  load {r['load'][1]:.1f}{late}", flush=True)
            if p99 > 1.0 or r["missing"]:  # a move still missing is later than any p99
                p99_passed = True
                break
            sustained = max(sustained, r["rate"])
        print(f"  sustained with p99 ≤ 1 s: {sustained:.0f} moves/s (the highest step tried under it)"
              + ("" if p99_passed or not args.ramp.strip() else
                 "; p99 never passed 1 s: the load generator on the same cores ran out first"))
        ceiling = 0.0
        for rate in [float(x) for x in args.flood.split(",") if x.strip()]:
            r = run_step(url, hub, port, directory, args.boards, 0, args.duration, spectators, flood_rate=rate)
            p99 = pct(r["watcher"], 99)
            received = r["counters"]["received"]
            print(f"  flood: {r['rate']:.0f} moves/s ({2 * r['rate']:.0f} messages/s in, {r['rate']:.0f} acks out), "
                  f"{spectators} spectators: {ms(r['watcher'])}  RSS {r['rss']:.0f} MB  "
                  f"CPU {r['cpu'] / max(r['played'], 1) * 1000:.2f} ms/move = {r['cpu'] / r['seconds'] * 100:.0f}% of a "
                  f"core  load {r['load'][1]:.1f}  {r['missing']} missing; hub received {received} in all", flush=True)
            if p99 > 1.0 or r["missing"] > r["played"] * 0.001:
                break
            ceiling = r["rate"]
        if args.flood:
            print(f"  the hub's own ceiling with p99 ≤ 1 s: {ceiling:.0f} moves/s = {2 * ceiling:.0f} messages/s in")
    finally:
        hub.send_signal(signal.SIGTERM)
        try:
            hub.wait(15)
        except subprocess.TimeoutExpired:
            hub.kill()
        broker.terminate()
        broker.wait(5)
        shutil.rmtree(directory, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
