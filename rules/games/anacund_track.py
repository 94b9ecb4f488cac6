"""Anacund's track: the shuffled slats read as 36 numbered squares, and captures along it.

The slats are shuffled every game, so the numbers are part of a game's setup (the ``track``
option and the position file), never of the board file. Two ways to write a track:

* **track order** — the 36 numbers of squares t1…t36 in order, the bonus square's number
  followed by ``*``: ``"1234*56…"``;
* **slat order** — the 17 slats from left to right, separated by ``-``: the left end slat
  (3 numbers, top to bottom), the fifteen 2-square slats (top square, then bottom square),
  the right end slat (3 numbers, top to bottom), the bonus marked the same way:
  ``"421-21-16-…-62-632"``.

Track order runs clockwise round the rectangle (see ``docs/rules/anacund.md``): t1…t15 are the
top squares of the 2-square slats left to right, t16…t18 the right end slat top to bottom,
t19…t33 the bottom squares right to left, t34…t36 the left end slat bottom to top.

Cells of a position are one character per square: ``.`` free, ``A``/``B`` a piece,
``a``/``b`` dead (its pieces were captured by A/B and lie beside it, turned to that colour).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

SQUARES = 36
NUMBERS = "123456"
PER_NUMBER = 6
SLATS = 17
FREE = "."
OTHER = {"A": "B", "B": "A"}

# The documented default (docs/rules/anacund.md): one shuffle of the slats, bonus on slat 8.
DEFAULT_SLATS = "421-21-16-24-31-31-53-1*3-45-43-65-45-56-65-24-62-632"

_SQUARE = re.compile(r"([0-9])(\*?)")


@dataclass(frozen=True)
class Track:
    """The squares' numbers in track order, the bonus square (1-based) and the shape."""

    numbers: str
    bonus: int
    loop: bool = True

    def number(self, square: int) -> int:
        """The number printed on square ``square`` (1-based)."""
        return int(self.numbers[square - 1])

    def text(self) -> str:
        """Track order with the bonus marked: the canonical form, as the option and files hold it."""
        i = self.bonus
        return self.numbers[:i] + "*" + self.numbers[i:]

    def neighbour(self, i: int, step: int) -> int | None:
        """The track-neighbour of cell index ``i`` (0-based) one ``step`` (±1) along, or None at an end."""
        j = i + step
        if self.loop:
            return j % SQUARES
        return j if 0 <= j < SQUARES else None


def _squares(text: str, where: str) -> list[tuple[str, bool]]:
    out: list[tuple[str, bool]] = []
    pos = 0
    while pos < len(text):
        m = _SQUARE.match(text, pos)
        if m is None:
            raise ValueError(f"{where}: unexpected {text[pos]!r} (numbers 1-6, the bonus followed by '*')")
        digit = m.group(1)
        if digit not in NUMBERS:
            raise ValueError(f"{where}: squares are numbered 1 to 6, not {digit}")
        out.append((digit, bool(m.group(2))))
        pos = m.end()
    return out


def _slat_order(text: str) -> list[tuple[str, bool]]:
    slats = [s for s in re.split(r"[-\s]+", text) if s]
    if len(slats) != SLATS:
        raise ValueError(f"slat order: {len(slats)} slats; Anacund has {SLATS} (two of 3 squares, fifteen of 2)")
    parsed = [_squares(s, f"slat {i} ({s!r})") for i, s in enumerate(slats, start=1)]
    for i, squares in enumerate(parsed, start=1):
        end = i in (1, SLATS)
        want = 3 if end else 2
        if len(squares) != want:
            which = "an end slat, which has 3 squares" if end else "a middle slat, which has 2 squares"
            raise ValueError(f"slat {i} ({slats[i - 1]!r}) has {len(squares)} squares; it is {which}"
                             " (the 3-square slats go at each end)")
    left, middle, right = parsed[0], parsed[1:-1], parsed[-1]
    top = [s[0] for s in middle]
    bottom = [s[1] for s in reversed(middle)]
    return top + right + bottom + list(reversed(left))


def parse_track(text: str) -> str:
    """Check a track (track order or slat order) and return its canonical track-order text.

    Raises ``ValueError`` naming what is wrong: not 36 squares, a number not used six times,
    no or several bonus squares, a slat of the wrong size (slat order only)."""
    t = str(text).strip()
    if not t:
        raise ValueError("empty track: give 36 numbers 1-6 in track order, the bonus followed by '*'")
    squares = _slat_order(t) if re.search(r"[-\s]", t) else _squares(t, "track")
    if len(squares) != SQUARES:
        raise ValueError(f"{len(squares)} squares; the track has {SQUARES}")
    digits = "".join(d for d, _ in squares)
    wrong = [f"{n} appears {digits.count(n)} times" for n in NUMBERS if digits.count(n) != PER_NUMBER]
    if wrong:
        raise ValueError(f"each number 1-6 is on exactly {PER_NUMBER} squares, but " + ", ".join(wrong))
    bonus = [i for i, (_, b) in enumerate(squares, start=1) if b]
    if not bonus:
        raise ValueError("no bonus square: mark it with '*' after its number")
    if len(bonus) > 1:
        raise ValueError(f"{len(bonus)} bonus squares marked (t{', t'.join(map(str, bonus))}); there is exactly one")
    return Track(digits, bonus[0]).text()


def make_track(text: str, shape: str = "loop") -> Track:
    """A :class:`Track` from checked text (see :func:`parse_track`) and a shape."""
    canonical = parse_track(text)
    star = canonical.index("*")
    return Track(canonical.replace("*", ""), star, shape == "loop")


DEFAULT_TRACK = parse_track(DEFAULT_SLATS)


# -- runs and captures ---------------------------------------------------------------------


def _walk(track: Track, cells: Sequence[str], start: int | None, step: int, colour: str) -> tuple[list[int], int | None]:
    """From ``start`` along ``step``, the cells of ``colour`` met, and the first cell that is not
    (``None`` at an open end, or if the run goes all the way round)."""
    run: list[int] = []
    i = start
    while i is not None and cells[i] == colour:
        run.append(i)
        if len(run) > SQUARES:
            return run, None
        i = track.neighbour(i, step)
    return run, i


def captures_after(track: Track, cells: Sequence[str], p: int, player: str) -> tuple[tuple[int, ...], bool]:
    """What ``player``'s piece just placed on cell ``p`` (already in ``cells``) captures.

    Returns (captured cell indices, sorted; True if they are the player's own landlocked run).
    First the opponent's runs the piece closes; only if there are none, the piece's own run if
    an opponent's piece now stands on both its track-neighbours."""
    opp = OTHER[player]
    caught: set[int] = set()
    for step in (-1, 1):
        run, stop = _walk(track, cells, track.neighbour(p, step), step, opp)
        if run and stop is not None and cells[stop] == player:
            caught.update(run)
    if caught:
        return tuple(sorted(caught)), False
    left, lstop = _walk(track, cells, track.neighbour(p, -1), -1, player)
    right, rstop = _walk(track, cells, track.neighbour(p, 1), 1, player)
    if lstop is not None and rstop is not None and p not in left and cells[lstop] == opp and cells[rstop] == opp:
        return tuple(sorted({p, *left, *right})), True
    return (), False


def closed_runs(track: Track, cells: Sequence[str]) -> list[tuple[str, tuple[int, ...]]]:
    """Every maximal run of one colour with an opponent's piece on both track-neighbours."""
    out = []
    for i, c in enumerate(cells):
        if c not in OTHER:
            continue
        before = track.neighbour(i, -1)
        if before is not None and cells[before] == c:
            continue  # not the start of its run (a run all round the loop has no start: never closed)
        run, stop = _walk(track, cells, i, 1, c)
        if stop is not None and before is not None and cells[stop] == OTHER[c] and cells[before] == OTHER[c]:
            out.append((c, tuple(run)))
    return out
