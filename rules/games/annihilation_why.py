"""Why an Annihilation board is not a legal turn (issue 31, item 2; ``rules/why.py``).

``why_illegal(state, attempt)`` reads the turn the players most plausibly meant off the
attempt (which particles left which points or ex nihilo zones and where particles arrived)
and names the rule of the rule text it breaks. Every rule is a check of its own
(:data:`CHECKS`, tried in the order a player would think of them): it answers only when it is
certainly true of the attempt, and never of a board a legal turn leaves
(``tests/rules/test_why_annihilation.py`` holds both). The rules and the rulings behind them are
listed in ``docs/rules/annihilation.md`` ("Rules a board can break").

Self-emission walks reuse the turn generator's walk search (``TurnMaker._walks``) with a rule
relaxed — the board's particles (walk through them) or rule 6 (no step forbidden) — so a
reason such as "every way there steps towards the opponent's point of emergence" is exactly
the difference between the relaxed walks and the legal ones.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property

from ..phrase import P, Phrase, Value
from ..view import OCCUPIED, Fidelity, View
from ..why import Attempt, Reason, Rule
from .annihilation import AnnihilationState, _geometry
from .annihilation_turns import COLOUR, NAME, PLAYER_OF, PLAYERS, Geometry, TurnMaker, opponent

GAME = "annihilation"


def _rule(rule_id: str, section: str, quote: str) -> Rule:
    return Rule(GAME, rule_id, section, quote)


# The seed's headings and words, as received (docs/rules/annihilation.md lists them).
RULES: dict[str, Rule] = {r.id: r for r in (
    _rule("game-over", "AIMS", "INITIALLY THE WINNING SCORE IS SET AT 20 BUT THIS CAN BE NEGOTIATED AT THE OUTSET "
          "BY THE PLAYERS ONCE PLAYERS ARE FAMILIAR WITH THE RULES AND GAME RUN TIME."),
    _rule("own-particles", "SET UP", "EACH PLAYER TAKES A FULL SET OF PARTICLES (1 ANNIHILATOR [0 CHARGE] AND 6 "
          "CHARGE CARRIERS [1,1,2,3,5,8])."),
    _rule("struck-only", "RULE #3 SELF EMISSION", "NOTE THAT A PLAYER MAY CAUSE, VIA SELF EMISSION A COLLISION WITH "
          "AN OPPONENT'S PARTICLE AND THEREBY EMISSION TRANSFERENCE TO THAT PARTICLE, FORCING THAT PARTICLE ALONG A "
          "SPECIFIC LINE OF FORCE."),
    _rule("annihilator-turn", "RULE #2 PLACING ANNIHILATORS",
          "THE PLACING OF AN ANNIHILATOR BY A PLAYER CONSTITUTES A SINGLE TURN."),
    _rule("introduce", "RULE #1 INTRODUCING CHARGE CARRIERS", "TO ENTER INTO THE CENTRAL ZONE OF MANIFESTATION, A "
          "PLAYER'S CHARGE CARRIER MUST FIRST BE PLACED ON THE PLAYER'S POINT OF EMERGENCE. THIS CONSTITUTES A "
          "SINGLE TURN."),
    _rule("annihilators-stay", "RULE #3 SELF EMISSION", "SELF EMISSION MEANS THAT THE INTERNAL CHARGE (DENOTED BY "
          "THE NUMBER OF SPOTS ON THE PARTICLE) BECOMES THE PARTICLE'S EXTERNAL MOVEMENT FORCE."),
    _rule("annihilator-placement", "RULE #2 PLACING ANNIHILATORS", "AN ANNIHILATOR MAY BE PLACED AT ANY TIME DURING "
          "THE GAME ON ANY EMPTY LOCATION POINT WITHIN THE CENTRAL ZONE OF MANIFESTATION."),
    _rule("emergence-by-transference", "RULE #1 INTRODUCING CHARGE CARRIERS", "ON A SUBSEQUENT TURN IT MAY THEN BE "
          "MOVED VIA EMISSION TRANSFERENCE BY PLACING ANOTHER PARTICLE AT THE POINT OF EMERGENCE AND EMITTING ITS "
          "CHARGE."),
    _rule("annihilated-at-emergence", "RULE #5 ANNIHILATION", "ANY PARTICLE BELONGING TO A PLAYER THAT ENDS IT'S "
          "MOTION AT THEIR OPPONENT'S POINT OF EMERGENCE DUE EITHER TO PRECISE USE OF ITS MOVEMENT FORCE OR DUE TO "
          "COLLISION AND EMISSION TRANSFERENCE TO AN OPPONENT'S PARTICLE, IS ANNIHILATED."),
    _rule("flip-annihilated", "RULE #5 ANNIHILATION", "ANY PARTICLE THAT IS ANNIHILATED IS FLIPPED OVER AND GIVEN TO "
          "THE PLAYER WHOSE SHADE IS NOW FACE UP."),
    _rule("self-emission-distance", "RULE #3 SELF EMISSION", "A SELF EMISSION PARTICLE IS FREE TO CHOOSE WHATEVER "
          "LINES OF FORCE TO TRAVERSE* PROVIDED THAT THEY TRAVEL A TOTAL DISTANCE EQUAL TO THEIR EMITTED CHARGE"),
    _rule("special-exception", "RULE #6 THE SPECIAL EXCEPTION", "THE FORCE CARRIER CLOSEST TO AN OPPONENT'S POINT OF "
          "EMERGENCE IS NOT ALLOWED TO MOVE FORWARDS TOWARDS IT."),
    _rule("collision", "RULE #3 SELF EMISSION", "OR DURING THAT MOTION COLLIDE WITH ANOTHER PARTICLE, TRANSFERRING "
          "THE REMAINDER OF THEIR MOVING FORCE AS EMISSION TRANSFERENCE TO THAT PARTICLE"),
    _rule("introduction-force", "RULE #1 INTRODUCING CHARGE CARRIERS",
          "THE ORIGINAL PARTICLE MUST NOW MOVE ALONG A FORCE LINE EQUAL TO THE CHARGE EMISSION."),
    _rule("annihilator-collision", "RULE #5 ANNIHILATION",
          "ANY PARTICLE THAT COLLIDES WITH AN ANNIHILATOR IS ANNIHILATED ALONG WITH THE ANNIHILATOR PARTICLE."),
    _rule("zero-force", "RULE #4 EMISSION TRANSFERENCE", "PARTICLES THAT MEET OTHERS WITH ZERO FORCE ANNIHILATE ONE "
          "ANOTHER (SEE RULE #5), UNLESS THEY SELF EMIT"),
    _rule("transference-force", "RULE #4 EMISSION TRANSFERENCE", "WHAT WAS THE STATIONARY PARTICLE MUST NOW MOVE "
          "ALONG THE FORCE LINE EQUAL TO THE AMOUNT OF CHARGE IT HAS HAD TRANSFERRED TO IT (NOT THE AMOUNT OF "
          "INTERNAL CHARGE IT POSSESSES) IN THE DIRECTION OF THE PLAYER'S CHOOSING."),
)}

RESERVES = {"ex_white": "white", "ex_black": "black"}


# -- reading the attempt ----------------------------------------------------------------------


@dataclass(frozen=True)
class Emission:
    """A self-emission read off the attempt: the mover's carrier left ``start`` and ended on
    the empty ``end`` (``struck`` None), or on ``struck``'s point, whose particle moved to ``end``."""

    start: int
    charge: int
    end: int
    struck: int | None = None


class _Walker(TurnMaker):
    """The turn generator's walk search with the board's particles or rule 6 left out."""

    def __init__(self, geo: Geometry, board, player: str, particles: bool, rule6: bool) -> None:
        super().__init__(geo, board, player)
        if not particles:
            self.occ = 0
        self.rule6 = rule6

    def _forbid(self, start: int) -> tuple[int, ...]:
        return super()._forbid(start) if self.rule6 else (0,) * self.geo.n


class Context:
    """One attempt against one position, with what the checks share (computed once)."""

    def __init__(self, state: AnnihilationState, attempt: Attempt) -> None:
        self.state = state
        self.attempt = attempt
        self.geo = _geometry()
        self.mover = state.player
        self.mine = COLOUR[self.mover]

    # the attempt split into points and ex nihilo zones
    @cached_property
    def board(self) -> dict[int, tuple[str, int]]:
        return self.state._board()

    def _split(self, pairs) -> tuple[list[tuple[int, str]], list[tuple[str, str]]]:
        points = [(self.geo.index[s], t) for s, t in pairs if s in self.geo.index]
        zones = [(s, t) for s, t in pairs if s in RESERVES]
        return points, zones

    @cached_property
    def lifted(self):
        return self._split(self.attempt.lifted)

    @cached_property
    def placed(self):
        return self._split(self.attempt.placed)

    @property
    def changed(self) -> int:
        return len(self.attempt.lifted) + len(self.attempt.placed)

    def name(self, token: str) -> Value:
        """A particle said as the turn descriptions say it: "White's 3", "Black's annihilator"."""
        what: Value = P("annihilator") if token[1:] == "0" else token[1:]
        return P("{player}'s {what}", player=P(NAME[PLAYER_OF[token[0]]]), what=what)

    def point(self, i: int) -> Value:
        return self.geo.point_name(i)

    @cached_property
    def emission(self) -> Emission | None:
        """The self-emission the attempt shows, if it is one: one of the mover's carriers left a
        point of the central zone and ended on an empty point, or on the point of the one
        particle that also moved (struck), which ended elsewhere."""
        (lp, lz), (pp, pz) = self.lifted, self.placed
        if lz or pz or len(lp) != len(pp) or len(lp) not in (1, 2) or self.legal_board:
            return None
        for (start, token), rest in ((lp[0], lp[1:]), (lp[-1], lp[:-1])):
            if token[0] != self.mine or token[1:] == "0" or self.geo.ids[start] not in self.geo.central_set:
                continue
            ends = [i for i, t in pp if t == token and i != start]
            if not rest:  # with a twin on the board, a chain through it looks the same: not read
                return Emission(start, int(token[1:]), ends[0]) if ends and self.alone(token, start) else None
            (struck, other), = rest
            lands = [i for i, t in pp if t == other and i != struck]
            if struck in ends and lands and self.alone(token, start) and self.alone(other, struck):
                return Emission(start, int(token[1:]), lands[0], struck)
        return None

    @cached_property
    def observed(self) -> dict[str, tuple[str, ...]]:
        """The board the attempt shows (the position with what left and arrived)."""
        board = dict(self.state.view(Fidelity.KIND).items())
        for s, t in self.attempt.lifted:
            board[s] = _less(board.get(s, ()), t)
        for s, t in self.attempt.placed:
            board[s] = tuple(sorted(board.get(s, ()) + (t,)))
        return {s: t for s, t in board.items() if t}

    @cached_property
    def legal_board(self) -> bool:
        """Some legal turn leaves exactly this board. Particles of one colour and charge are
        interchangeable, so a chain can look like something else (a 1 knocked on, self-emitting
        into another 1 that moves on, reads as one 1 moved): no reason is given then."""
        changed = {s for s, _ in self.attempt.lifted + self.attempt.placed}
        seen = View(self.observed)
        return any(changed <= self.state.move_spaces(m) and self.state.successor(m).view(Fidelity.KIND) == seen
                   for m in self.state.legal_moves())

    def alone(self, token: str, at: int) -> bool:
        """No other point holds a particle like ``token`` (one that a chain could swap it with)."""
        return not any(t == token and p != self.geo.ids[at] for p, t in self.state.particles)

    def walks(self, particles: bool = True, rule6: bool = True) -> tuple[int, tuple[int, ...]]:
        """(reachable (point, steps left) pairs as the turn generator's bitmask, the steps
        forbidden by rule 6 from each point) for the emission's carrier."""
        e = self.emission
        assert e is not None
        maker = _Walker(self.geo, self.board, self.mover, particles, rule6)
        return maker._walks(e.start, e.charge), maker._forbid(e.start)

    def ends_on(self, particles: bool = True, rule6: bool = True) -> bool:
        """Some walk of exactly the charge ends on the emission's end point."""
        e = self.emission
        return bool(self.walks(particles, rule6)[0] >> e.end & 1)

    def stops_short(self, legal: bool) -> bool:
        """The plain end could be a stop short of the full charge: force lost against a particle
        that cannot move (ruling R5). ``legal``: a legal turn does it; else some walk, whatever
        the particles and rule 6, reaches the end with force to spare beside a particle."""
        e = self.emission
        ids = self.geo.ids
        if legal:
            prefix = f"{ids[e.start]}-{ids[e.end]}!"
            return any(self.state.move_text(m).startswith(prefix) for m in self.state.legal_moves())
        beside = any(q in self.board and q != e.start for q in self.geo.adj[e.end])
        found = self.walks(particles=False, rule6=False)[0]
        n = self.geo.n
        return beside and any(found >> (left * n + e.end) & 1 for left in range(2, e.charge))

    def strike_forces(self, particles: bool = True, rule6: bool = True) -> set[int]:
        """The forces left (charge less the steps taken) with which the carrier can step onto
        the struck particle's point; its last step onto it too obeys rule 6."""
        e = self.emission
        assert e is not None and e.struck is not None
        found, forbid = self.walks(particles, rule6)
        n, full = self.geo.n, (1 << self.geo.n) - 1
        forces = set()
        for left in range(e.charge, 0, -1):
            level = (found >> (left * n)) & full if left < e.charge else 1 << e.start
            if any(level >> q & 1 and not forbid[q] >> e.struck & 1 for q in self.geo.adj[e.struck]):
                forces.add(left - 1)
        return forces

    def straight(self, at: int, end: int, force: int) -> bool:
        """``end`` lies ``force`` points from ``at`` along one line of force (whatever is on it)."""
        return force > 0 and any(len(ray) >= force and ray[force - 1] == end for ray in self.geo.rays[at])


# -- the checks, each true on its own ----------------------------------------------------------

Check = Callable[[Context], "Phrase | None"]


def _game_over(c: Context) -> Phrase | None:
    if not c.state.over:
        return None
    win = c.state.winner()
    if win is None:
        return P("the game is over: a draw")
    return P("the game is over: {player} has won", player=P(NAME[win]))


def _own_particles(c: Context) -> Phrase | None:
    # Legal turns only ever add to the opponent's ex nihilo zone (annihilated particles, flipped).
    theirs = [(s, t) for s, t in c.lifted[1] if RESERVES[s] != c.mover]
    if not theirs:
        return None
    zone, token = theirs[0]
    return P("{particle} was taken from {player}'s ex nihilo zone: {mover} plays only {mover}'s particles",
             particle=c.name(token), player=P(NAME[RESERVES[zone]]), mover=P(NAME[c.mover]))


def _struck_only(c: Context) -> Phrase | None:
    # Every legal turn lifts one of the mover's particles: the self-emitter, or one from the reserve.
    (lp, lz) = c.lifted
    if any(t[0] == c.mine for _, t in lp) or any(RESERVES[s] == c.mover for s, _ in lz):
        return None
    theirs = [(i, t) for i, t in lp if t[0] != c.mine]
    if not theirs or c.legal_board:
        return None
    i, token = theirs[0]
    return P("{particle} on {point} moved by itself: {mover}'s turn moves an opponent's particle only by "
             "striking it", particle=c.name(token), point=c.point(i), mover=P(NAME[c.mover]))


def _annihilator_turn(c: Context) -> Phrase | None:
    # A placement changes its point and the placer's ex nihilo zone, nothing else.
    own = [t for s, t in c.lifted[1] if RESERVES[s] == c.mover and t[1:] == "0"]
    if not own or c.changed <= 2 or not any(t == own[0] for _, t in c.placed[0]):
        return None
    return P("{mover} placed an annihilator and moved other particles too: placing an annihilator is the whole "
             "turn", mover=P(NAME[c.mover]))


def _two_introduced(c: Context) -> Phrase | None:
    carriers = [t for s, t in c.lifted[1] if RESERVES[s] == c.mover and t[1:] != "0"]
    if len(carriers) < 2:
        return None
    return P("{mover} took {n} carriers from the ex nihilo zone: introducing one carrier is the whole turn",
             mover=P(NAME[c.mover]), n=len(carriers))


def _introduced_elsewhere(c: Context) -> Phrase | None:
    (lp, lz), (pp, pz) = c.lifted, c.placed
    if lp or pz or len(lz) != 1 or len(pp) != 1 or lz[0][1] != pp[0][1]:
        return None
    zone, token = lz[0]
    at = pp[0][0]
    own_pe = c.geo.pe_index[c.mover]
    if token[1:] == "0" or RESERVES[zone] != c.mover or at == own_pe or c.legal_board:
        return None
    if c.board.get(own_pe) == (token[0], int(token[1:])):
        return None  # it may as well have gone onto the point of emergence, knocking its twin on
    return P("{particle} was put on {point}: a carrier enters play on {mover}'s own point of emergence",
             particle=c.name(token), point=c.point(at), mover=P(NAME[c.mover]))


def _single_move(c: Context) -> tuple[int, int, str] | None:
    """(from, to, token) when one particle moved from one point to another and nothing else."""
    (lp, lz), (pp, pz) = c.lifted, c.placed
    if lz or pz or len(lp) != 1 or len(pp) != 1 or lp[0][1] != pp[0][1]:
        return None
    return lp[0][0], pp[0][0], lp[0][1]


def _annihilators_stay(c: Context) -> Phrase | None:
    moved = _single_move(c)
    if moved is None or moved[2][1:] != "0":
        return None
    a, b, token = moved
    return P("{particle} moved from {start} to {end}: an annihilator has no charge to move by",
             particle=c.name(token), start=c.point(a), end=c.point(b))


def _annihilator_placement(c: Context) -> Phrase | None:
    (lp, lz), (pp, pz) = c.lifted, c.placed
    if lp or pz or len(lz) != 1 or len(pp) != 1 or lz[0][1] != pp[0][1] or lz[0][1][1:] != "0":
        return None
    at = pp[0][0]
    if c.geo.ids[at] in c.geo.central_set:
        return None
    return P("{particle} was put on {point}: an annihilator goes on an empty point of the central zone",
             particle=c.name(lz[0][1]), point=c.point(at))


def _emergence_by_transference(c: Context) -> Phrase | None:
    moved = _single_move(c)
    if moved is None or moved[2][0] != c.mine or moved[2][1:] == "0" or moved[0] != c.geo.pe_index[c.mover] \
            or c.legal_board:
        return None
    a, b, token = moved
    return P("{particle} left {start} by itself: a carrier on its point of emergence moves on only when another "
             "is introduced behind it", particle=c.name(token), start=c.point(a))


def _annihilated_at_emergence(c: Context) -> Phrase | None:
    # A particle on its opponent's point of emergence at the end of a turn is annihilated there;
    # the reason holds when the board with it flipped into that player's ex nihilo zone is
    # exactly a legal turn's.
    from ..explain import Verdict, explain

    seen = {s: t for s, t in c.attempt.placed if s in c.geo.index}
    for p in PLAYERS:
        pe = c.geo.pe[p]
        token = seen.get(pe)
        if token is None or PLAYER_OF[token[0]] == p:
            continue
        board = dict(c.observed)
        board[pe] = _less(board[pe], token)
        zone = c.geo.reserve[p]
        board[zone] = board.get(zone, ()) + (COLOUR[p] + token[1:],)
        verdict = explain(c.state, View({s: t for s, t in board.items() if t}), Fidelity.KIND).verdict
        if verdict in (Verdict.LEGAL, Verdict.AMBIGUOUS):
            return P("{particle} ended its motion on {point}: it is annihilated there, flipped into {player}'s ex "
                     "nihilo zone", particle=c.name(token), point=c.point(c.geo.index[pe]), player=P(NAME[p]))
    return None


def _less(tokens: tuple[str, ...], token: str) -> tuple[str, ...]:
    out = list(tokens)
    out.remove(token)
    return tuple(out)


def _flip_annihilated(c: Context) -> Phrase | None:
    # The turn was carried out right on the points, but annihilated particles went into the
    # ex nihilo zones unflipped (or to the wrong player): the same charges, the wrong shades.
    if not any(s in RESERVES for s, _ in c.attempt.placed):
        return None
    board = c.observed
    points = {s: t for s, t in board.items() if s not in RESERVES and t}
    charges = Counter(t[1:] for s in RESERVES for t in board.get(s, ()))
    for m in c.state.legal_moves():
        after = c.state.successor(m).view(Fidelity.KIND)
        if {s: t for s, t in after.items() if s not in RESERVES} != points:
            continue
        if Counter(t[1:] for s in RESERVES for t in after.get_tokens(s)) != charges:
            continue
        for zone, p in RESERVES.items():
            missing = Counter(after.get_tokens(zone)) - Counter(board.get(zone, ()))
            if missing:
                token = next(iter(missing))
                was = COLOUR[opponent(p)] + token[1:]
                return P("{particle} was annihilated: flipped over, it goes into {player}'s ex nihilo zone",
                         particle=c.name(was), player=P(NAME[p]))
    return None


def _self_emission_distance(c: Context) -> Phrase | None:
    e = c.emission
    if e is None:
        return None
    if e.struck is None:
        if c.ends_on(particles=False, rule6=False) or c.stops_short(legal=False):
            return None
        return P("{particle} moved from {start} to {end}: a self-emission travels exactly {charge} along lines of "
                 "force", particle=c.name(c.mine + str(e.charge)), start=c.point(e.start), end=c.point(e.end),
                 charge=e.charge)
    if c.strike_forces(particles=False, rule6=False):
        return None
    return P("{particle} on {start} cannot reach {point} with a self-emission of {charge}",
             particle=c.name(c.mine + str(e.charge)), start=c.point(e.start), point=c.point(e.struck), charge=e.charge)


def _special_exception(c: Context) -> Phrase | None:
    e = c.emission
    if e is None:
        return None
    if e.struck is None:
        if c.ends_on() or c.stops_short(legal=True) or not c.ends_on(rule6=False):
            return None
        goal = e.end
    else:
        if c.strike_forces() or not c.strike_forces(rule6=False):
            return None
        goal = e.struck
    return P("every way for {particle} from {start} to {point} steps towards {player}'s point of emergence while it "
             "is {mover}'s carrier closest to it", particle=c.name(c.mine + str(e.charge)), start=c.point(e.start),
             point=c.point(goal), player=P(NAME[opponent(c.mover)]), mover=P(NAME[c.mover]))


def _collision(c: Context) -> Phrase | None:
    e = c.emission
    if e is None:
        return None
    if e.struck is None:
        if c.ends_on() or c.stops_short(legal=True) or not c.ends_on(particles=False):
            return None
        goal = e.end
    else:
        if c.strike_forces() or not c.strike_forces(particles=False):
            return None
        goal = e.struck
    return P("{particle} from {start} cannot reach {point} without meeting a particle on the way: it stops at the "
             "first particle it meets", particle=c.name(c.mine + str(e.charge)), start=c.point(e.start),
             point=c.point(goal))


def _introduction_force(c: Context) -> Phrase | None:
    (lp, lz), (pp, pz) = c.lifted, c.placed
    pe = c.geo.pe_index[c.mover]
    if pz or len(lz) != 1 or len(lp) != 1 or len(pp) != 2 or lp[0][0] != pe or RESERVES[lz[0][0]] != c.mover:
        return None
    token, knocked = lz[0][1], lp[0][1]
    if token[1:] == "0" or (pe, token) not in pp:
        return None
    ends = [i for i, t in pp if t == knocked and i != pe]
    force = int(token[1:])
    if not ends or c.straight(pe, ends[0], force) or not c.alone(knocked, pe) or c.legal_board:
        return None
    return P("{particle} knocked from {start} to {end}: it moves exactly {force} along a line of force, the charge "
             "introduced", particle=c.name(knocked), start=c.point(pe), end=c.point(ends[0]), force=force)


def _struck(c: Context) -> tuple[Emission, str] | None:
    e = c.emission
    if e is None or e.struck is None:
        return None
    colour, charge = c.board[e.struck]
    return e, f"{colour}{charge}"


def _annihilator_collision(c: Context) -> Phrase | None:
    found = _struck(c)
    if found is None or found[1][1:] != "0" or not c.strike_forces():
        return None
    e, token = found
    return P("{particle} hit {other} at {point}: both are annihilated", particle=c.name(c.mine + str(e.charge)),
             other=c.name(token), point=c.point(e.struck))


def _zero_force(c: Context) -> Phrase | None:
    found = _struck(c)
    if found is None or found[1][1:] == "0":
        return None
    e, token = found
    forces = c.strike_forces()
    if forces != {0}:
        return None
    return P("{particle} reached {other} at {point} with no force left: both are annihilated",
             particle=c.name(c.mine + str(e.charge)), other=c.name(token), point=c.point(e.struck))


def _transference_force(c: Context) -> Phrase | None:
    found = _struck(c)
    if found is None or found[1][1:] == "0":
        return None
    e, token = found
    forces = sorted(f for f in c.strike_forces() if f > 0)
    if not forces or any(c.straight(e.struck, e.end, f) for f in forces):
        return None
    if len(forces) == 1:
        return P("{particle} struck at {point} moved to {end}: it moves exactly {force} along one line of force, the "
                 "force it received", particle=c.name(token), point=c.point(e.struck), end=c.point(e.end),
                 force=forces[0])
    return P("{particle} struck at {point} moved to {end}: it moves straight along one line of force exactly the "
             "force it received", particle=c.name(token), point=c.point(e.struck), end=c.point(e.end))


# In the order a player would think of them: whose particles, how many, which kind of turn,
# then the turn's own motion and its chain.
CHECKS: tuple[tuple[str, Check], ...] = (
    ("game-over", _game_over),
    ("own-particles", _own_particles),
    ("struck-only", _struck_only),
    ("annihilator-turn", _annihilator_turn),
    ("introduce", _two_introduced),
    ("annihilators-stay", _annihilators_stay),
    ("annihilator-placement", _annihilator_placement),
    ("introduce", _introduced_elsewhere),
    ("emergence-by-transference", _emergence_by_transference),
    ("annihilated-at-emergence", _annihilated_at_emergence),
    ("flip-annihilated", _flip_annihilated),
    ("self-emission-distance", _self_emission_distance),
    ("special-exception", _special_exception),
    ("collision", _collision),
    ("introduction-force", _introduction_force),
    ("annihilator-collision", _annihilator_collision),
    ("zero-force", _zero_force),
    ("transference-force", _transference_force),
)


def named(state: AnnihilationState, attempt: Attempt) -> Attempt | None:
    """The attempt with every particle named, or None at occupancy: there a chain reads as one
    particle moved (a strike leaves the struck point occupied, by the striker), so what was
    tried cannot be told."""
    if any(t == OCCUPIED for _, t in attempt.lifted + attempt.placed):
        return None
    return attempt


def diagnose(state: AnnihilationState, attempt: Attempt) -> tuple[str, Phrase] | None:
    """(rule id, the attempt said with why) of the first rule the attempt certainly breaks."""
    attempt = named(state, attempt)
    if attempt is None or not (attempt.lifted or attempt.placed):
        return None
    c = Context(state, attempt)
    for rule_id, check in CHECKS:
        said = check(c)
        if said is not None:
            return rule_id, said
    return None


def holds(state: AnnihilationState, attempt: Attempt, rule_id: str) -> bool:
    """Whether ``rule_id``'s own check (alone, whatever the others say) finds the attempt breaks it."""
    attempt = named(state, attempt)
    if attempt is None:
        return False
    c = Context(state, attempt)
    return any(check(c) is not None for rid, check in CHECKS if rid == rule_id)


def why_illegal(state: AnnihilationState, attempt: Attempt) -> Reason | None:
    found = diagnose(state, attempt)
    return None if found is None else Reason(RULES[found[0]], found[1])
