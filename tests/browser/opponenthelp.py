"""A person at the simulated board against the computer, through ``tableref serve`` run as a
real process: the page read as a person reads it, every move made by clicking the simulated
board (lift, then put down), the computer's as the page shows it."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections import Counter
from contextlib import contextmanager
from pathlib import Path

from rules import Fidelity, View, get_game

ROOT = Path(__file__).resolve().parents[2]


@contextmanager
def serving(tmp_path, *args, settle="0.15", readings="2"):
    """``tableref serve`` on a free port, its output in files; yields the page's URL. Stopped
    with SIGTERM (as systemd does) and expected to stop cleanly."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    out, err = tmp_path / "serve.out", tmp_path / "serve.err"
    with open(out, "w") as o, open(err, "w") as e:
        proc = subprocess.Popen(
            [sys.executable, "-m", "tableref.serve", "--port", "0", "--journal", str(tmp_path / "j.sqlite3"),
             "--settle", settle, "--readings", readings, *args],
            stdout=o, stderr=e, text=True, env=env, cwd=tmp_path)
    try:
        deadline = time.monotonic() + 30
        url = None
        while url is None:
            for line in out.read_text().splitlines():
                if "open http://" in line:
                    url = line.split("open ")[1].split()[0]
            if url is None:
                assert proc.poll() is None, f"tableref serve exited {proc.returncode}: {err.read_text()}"
                assert time.monotonic() < deadline, f"tableref serve printed no URL: {out.read_text()} {err.read_text()}"
                time.sleep(0.1)
        yield url
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
    assert proc.returncode == 0, err.read_text()[-2000:]


def live(page) -> dict:
    """The live table as the page's own request reads it."""
    return page.evaluate("async () => (await fetch('/api/state')).json()")


def position(snap):
    """The rules' state of the live table's position."""
    return get_game(snap["game"]).from_dict(snap["position"])


def fidelity(snap) -> Fidelity:
    return Fidelity(snap["fidelity"])


def hand_count(page) -> int:
    return page.locator("#hand .piece-btn").count()


def _wait_hand(page, n):
    page.wait_for_function("n => document.querySelectorAll('#hand .piece-btn').length === n", arg=n)


def _lift(page, space, token, held):
    page.click(f'#simboard [data-space="{space}"]')
    if page.locator("#picker .piece-btn").count():  # several kinds of piece here: say which
        page.click(f'#picker .piece-btn[data-token="{token}"]')
    _wait_hand(page, held + 1)


def _put(page, space, held):
    page.click(f'#simboard [data-space="{space}"]')
    _wait_hand(page, held - 1)


def carry_out(page, before: View, after: View, *, lift=(), place=()):
    """Make the board go from ``before`` to ``after`` by clicks, as a person's hands would, one
    piece at a time (the page's hand puts down what it holds at the next click): a piece that
    leaves the board is lifted and put in the box, one that comes on is taken from the box, every
    other piece is lifted and put down where it goes (a bumped ring after the ring that bumps
    it: the page asks which piece to lift from a space holding both). ``lift``/``place``: the
    spaces the page showed, which every space lifted from or put down on must be among."""
    gone: list[tuple[str, str]] = []
    come: list[tuple[str, str]] = []
    for space in sorted(before.diff(after)):
        was, now = Counter(before.get_tokens(space)), Counter(after.get_tokens(space))
        gone += [(space, t) for t in (was - now).elements()]
        come += [(space, t) for t in (now - was).elements()]
    if lift or place:
        assert {s for s, _ in gone} <= set(lift), (gone, lift)
        assert {s for s, _ in come} <= set(place), (come, place)
    pairs, from_box = [], []
    for space, token in come:
        src = next((g for g in gone if g[1] == token and g[0] != space), None)
        if src is None:
            from_box.append((space, token))
        else:
            gone.remove(src)
            pairs.append((src[0], space, token))
    assert hand_count(page) == 0, "something is in the hand already"
    # A piece moving onto a space another piece leaves goes first (the bump: the ring lands,
    # then the ring it landed on is moved on).
    leaving = {src for src, _, _ in pairs}
    pairs.sort(key=lambda p: p[1] not in leaving)
    for src, dst, token in pairs:
        _lift(page, src, token, 0)
        _put(page, dst, 1)
    for space, token in gone:  # off the board: into the box
        _lift(page, space, token, 0)
        page.click("#discard")
        _wait_hand(page, 0)
    for space, token in from_box:
        want = live(page)["sim"]["view"].get(space, []).count(token) + 1
        if not page.locator(f'#box .piece-btn.selected[data-token="{token}"]').count():
            page.click(f'#box .piece-btn[data-token="{token}"]')  # chosen from the box (it stays chosen)
        page.click(f'#simboard [data-space="{space}"]')
        poll(lambda: live(page)["sim"]["view"].get(space, []).count(token) >= want,
             lambda: f"{token} from the box put on {space} (the page said: {page.inner_text('#toast')!r})")
    if page.locator("#box .piece-btn.selected").count():
        page.click("#box .piece-btn.selected")  # done with the box: a click on the board lifts again


def poll(ok, what, timeout=10.0):
    deadline = time.monotonic() + timeout
    while not ok():
        assert time.monotonic() < deadline, f"timed out waiting: {what() if callable(what) else what}"
        time.sleep(0.05)


def shown_steps(page) -> list[dict]:
    """The computer's steps still to make, as the page's card shows them."""
    return page.eval_on_selector_all(
        "#computer[data-kind='computer'] ol.turn-steps li.todo",
        "els => els.map(e => ({move: e.dataset.move, lift: e.dataset.lift.split(' ').filter(Boolean),"
        " place: e.dataset.place.split(' ').filter(Boolean)}))")


def wait_for_computer(page, timeout=20000):
    page.wait_for_selector("#computer[data-kind='computer'] ol.turn-steps li.todo", timeout=timeout)


def play_computer_turn(page):
    """Carry out the computer's turn shown on the page, step by step, as the page says it; the
    number of moves made once the page shows them all played."""
    wait_for_computer(page)
    # Two computer seats in a row (DRIFT): the card may still show the one whose turn was just
    # carried out while the live table already has the next to move; wait for them to agree.
    poll(lambda: (lambda snap: (snap.get("computer") or {}).get("side") == snap["to_move"]
                  and not snap["computer"].get("thinking"))(live(page)) and shown_steps(page),
         lambda: f"the computer's move for the side to move: {live(page).get('computer')}", timeout=20.0)
    snap = live(page)
    steps = shown_steps(page)
    assert steps and snap["computer"]["side"] == snap["to_move"]
    # The board draws every step: lift and put-down spaces marked apart.
    for sp in steps[0]["lift"]:
        assert page.locator(f'#board .b-lift.computer[data-space="{sp}"]').count(), sp
    for sp in steps[0]["place"]:
        assert page.locator(f'#board .b-place.computer[data-space="{sp}"]').count(), sp
    state, fid = position(snap), fidelity(snap)
    expected = len(snap["moves"])
    done = snap["computer"]["done"]
    for i, step in enumerate(steps):
        after = state.apply_text(step["move"])
        carry_out(page, state.view(fid), after.view(fid), lift=step["lift"], place=step["place"])
        state = after
        expected += 1
        if any(later["lift"] or later["place"] for later in steps[i + 1:]):
            # A turn of several moves: the step made is ticked, the rest still to do.
            page.wait_for_function("n => document.querySelectorAll('#computer li.done').length >= n",
                                   arg=done + i + 1)
            TICKED.append(step["move"])
    wait_moves(page, expected)
    return expected


TICKED: list[str] = []  # the steps the page ticked as done with more of the turn to make


def wait_moves(page, n, timeout=15000):
    page.wait_for_function("n => document.querySelectorAll('#moves li').length >= n", arg=n, timeout=timeout)


def make_move(page, snap, move_text):
    """A person's own move, by clicks; waits until the page lists it."""
    state, fid = position(snap), fidelity(snap)
    after = state.apply_text(move_text)
    carry_out(page, state.view(fid), after.view(fid))
    wait_moves(page, len(snap["moves"]) + 1)
