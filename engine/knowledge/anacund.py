"""Anacund: random playouts are cheap (about 40 plies a game, 65,000 plies/s) and the game ends
on a fixed count of placements, so a playout always runs to the end: no cut-off. What a small
search lacks is order: a turn is three placements, and at level 1 the later two get only a few
simulations each — so a node's placements are tried best first by a glance at each (six to
eighteen placements: cheap to look at), which is also the choice when the budget is spent
mid-turn.

The glance is the placement's whole effect on the lead — a landlocked placement's own capture
too (the rules make it the next ply, so the lead right after it still counted the doomed piece)
— less what the player's runs stand to lose: a run with an opponent's piece at one end and a
free square the opponent can reach next turn at the other is as good as gone, one with both
ends free is at some risk, one against a dead square is safe for ever. Level 1 lost to random
play mostly so: in 14 of its 18 losses in 300 games it had put a piece on the bonus square
(1 + 5 points) with both neighbours free, and the random player happened to close them — a
12-point swing the 40-simulation search did not see; it also rated a landlocked placement as
+1. The other way round too: as B it lost when random play's piece stood on the bonus and it
did not close both neighbours, a capture of two placements whose first gains nothing at once —
so the glance also counts the opponent's runs the player can close (all of it while its turn
goes on, half when the opponent moves first). Level 1 then won 294 of 300 against random play
(seed 52, speed 0; 279 of 300 without the threats, 290 of 300 at seed 42).

With the glance every level is better, the lower ones most (their choices are the glance's),
so the levels' usual budgets no longer parted them: level 2 (150 simulations) beat level 1
(40) only 54.5 % of 200 games. The search still separates levels when each has about three
times the one below (level 2 at 300 beat level 1 61.5 % of 200; level 5 with all of its 2.5 s
beat level 4 at 3,000 70 % of 60, at a Pi's pace), so Anacund keeps its own, wider budgets
with time caps to match: playouts are cheap, and level 4's 3,000 simulations take about a
second on a Pi 4, so from level 3 up the caps bind there. A turn now spends its whole cap
(before, a turn's later placements were rarely searched again and a turn used about half: levels
3, 4, 5 beat the one below 57 %, 59 %, 65 %, seed 51); level 3's cap is then 0.75 s, half of
level 4's (at 0.9 s level 4 beat it 58 % of 100 and level 3 beat level 2 68 %; at 0.75 s 62 %
and 63 %, at a Pi's pace). Level 1 keeps the level's own (40), which is what it is: at 60 it beat random
play 98 % of 300 but level 2 at 300 no more (53 % of 200). Only level 1 slips, one turn in five
(290 of 300 against random play with the slip and without it)."""

from __future__ import annotations

from collections.abc import Iterator

from rules.games.anacund import PLAYERS, PER_TURN, BONUS_POINTS
from rules.games.anacund_track import FREE, OTHER, SQUARES

from ..api import Limit
from . import Knowledge, register, score_lead

# The chance that the opponent closes an exposed run before the player can mend it: one free
# end it can reach (it needs one placement of its three), or two (it needs both ends this turn).
ONE_END_OPEN = 0.8
BOTH_ENDS_OPEN = 0.3
# What the opponent's exposed runs are worth to the player: all of it while its turn goes on,
# half once the opponent moves first (it may close the player's runs instead).
THREAT_NOW, THREAT_LATER = 1.0, 0.5


def settled(state, move):
    """The position after ``move`` and the capture it brings on itself, if any."""
    after = state.successor(move)
    if after.landlocked:
        after = after.successor(after.legal_moves()[0])
    return after


def reach(state, player: str) -> set[int]:
    """The square numbers ``player`` can place on in its next turn of three: a group of g pieces
    gives g, then g − 1, then g − 2."""
    out: set[int] = set()
    for g in state.groups[PLAYERS.index(player)]:
        out.update(range(max(1, g - PER_TURN + 1), g + 1))
    return out


def runs(track, cells: str, colour: str) -> Iterator[tuple[list[int], int | None, int | None]]:
    """Each maximal run of ``colour``'s pieces: its cells and the cells just before and after it
    (None at an open end). A run all round the loop has no ends and is not listed."""
    for i in range(SQUARES):
        before = track.neighbour(i, -1)
        if cells[i] != colour or (before is not None and cells[before] == colour):
            continue
        run, j = [], i
        while j is not None and cells[j] == colour and len(run) < SQUARES:
            run.append(j)
            j = track.neighbour(j, 1)
        yield run, before, j


def exposure(state, player: str) -> float:
    """Points of lead ``player`` stands to lose by its runs being closed: twice a run's worth
    (the opponent gains what the player loses) times the chance it is closed."""
    track, cells = state.track, state.cells
    opp = OTHER[player]
    can = reach(state, opp)
    total = 0.0
    for run, before, after in runs(track, cells, player):
        open_ends, closed = 0, 0
        for end in (before, after):
            if end is not None and cells[end] == opp:
                closed += 1
            elif end is not None and cells[end] == FREE and track.number(end + 1) in can:
                open_ends += 1
        if closed + open_ends < 2:
            continue  # an end is safe: dead, open, or out of the opponent's reach
        worth = len(run) + (BONUS_POINTS if track.bonus - 1 in run else 0)
        total += 2 * worth * (ONE_END_OPEN if closed else BOTH_ENDS_OPEN)
    return total


def glance(state, move) -> float:
    """What the placement is worth to the player making it, at a glance: the lead, less its own
    runs' exposure, plus the opponent's runs it can close — at once if its turn goes on (the
    second half of a capture that takes two placements), else half, the opponent moving first."""
    me = state.to_move
    after = settled(state, move)
    mine = not after.is_game_over() and after.to_move == me
    return (score_lead(after.scores(), me) - exposure(after, me)
            + (THREAT_NOW if mine else THREAT_LATER) * exposure(after, OTHER[me]))


class Anacund(Knowledge):
    game = "anacund"
    playout_depth = None  # to the end: 36 placements at most
    score_scale = 6.0  # points of lead that all but decide a game
    slips = {1: 0.2}  # and none above: the search separates them (above)
    # About three times the search of the level below; the time caps are a Pi 4's seconds
    # (level 5's is what bounds it there, inside the 3 s asked of it).
    limits = {2: Limit(nodes=300, time=0.5), 3: Limit(nodes=1000, time=0.75),
              4: Limit(nodes=3000, time=1.5), 5: Limit(nodes=12000, time=2.5)}

    def order(self, state, moves, rng):
        scored = [(glance(state, m) + 0.5 * rng.random(), m) for m in moves]
        scored.sort(key=lambda x: -x[0])
        return [m for _, m in scored]

    def fallback(self, state, moves, rng):
        return self.order(state, moves, rng)[0]


register(Anacund())
