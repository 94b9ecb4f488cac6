"""The event's results and standings, from the pairings and the games the boards sent. Pure.

A pairing's result is the arbiter's, if one was entered by hand; else that of the latest game
at its table in its round that ended with an outcome (an abandoned game has none). A win
scores 1 point, a draw ½; the games' own scores (Annihilation points, Anacund's captures) are
added up beside them.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from .store import GameRow


@dataclass(frozen=True)
class Result:
    round: int
    board: str
    players: dict[str, str]  # side → name
    outcome: dict[str, Any] | None  # {"winner": side | None, "reason", "scores"}; None: not over
    by_hand: bool = False
    game: int | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"round": self.round, "board": self.board, "players": self.players, "outcome": self.outcome,
                "by_hand": self.by_hand, "game": self.game}


@dataclass
class Line:
    name: str
    played: int = 0
    wins: int = 0
    draws: int = 0
    losses: int = 0
    points: float = 0.0
    score: int = 0  # the games' own scores added up
    games: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "played": self.played, "wins": self.wins, "draws": self.draws,
                "losses": self.losses, "points": self.points, "score": self.score}


def results(pairings: Iterable[Mapping[str, Any]], games: Iterable[GameRow]) -> list[Result]:
    by_table: dict[tuple[int, str], GameRow] = {}
    for g in games:
        if g.round is not None and g.finished and g.outcome is not None:
            key = (g.round, g.board)
            if key not in by_table or g.game > by_table[key].game:
                by_table[key] = g
    out = []
    for p in pairings:
        rnd, board = p["round"], p["board"]
        if p.get("result") is not None:
            out.append(Result(rnd, board, p["players"], p["result"], True))
            continue
        g = by_table.get((rnd, board))
        out.append(Result(rnd, board, p["players"], g.outcome if g else None, False, g.game if g else None))
    return out


def standings(results_: Iterable[Result]) -> list[Line]:
    lines: dict[str, Line] = {}
    for r in results_:
        if r.outcome is None:
            continue
        winner = r.outcome.get("winner")
        scores = r.outcome.get("scores") or {}
        for side, name in r.players.items():
            line = lines.setdefault(name, Line(name))
            line.played += 1
            if winner is None:
                line.draws, line.points = line.draws + 1, line.points + 0.5
            elif winner == side:
                line.wins, line.points = line.wins + 1, line.points + 1
            else:
                line.losses += 1
            value = scores.get(side)
            if isinstance(value, int) and not isinstance(value, bool):
                line.score += value
    return sorted(lines.values(), key=lambda l: (-l.points, -l.score, -l.wins, l.name))
