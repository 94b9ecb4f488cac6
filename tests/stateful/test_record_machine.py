"""Issue 23: a stateful property test over the referee, the journal and the live page.

Random board edits (moves, illegal boards, restores, takebacks on the board), undo, declare,
confirm, new games (from the page and the panel's long press), and service restarts. After
every step the journal's moves, the referee's record and what the page shows are one list,
and every accepted move is either still recorded or was taken back by an explicit undo, a
takeback the players confirmed, or the players putting an earlier position of that game back
on the board."""

from __future__ import annotations

import os
import random
import shutil
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, rule

from rules import get_game
from decisions import StartGame
from tableref.journal import Journal
from tableref.serve import Service

PIN = "2468"
FAST_SCRYPT = "scrypt:1024:8:1"
EXAMPLES = int(os.environ.get("TABLEREF_STATEFUL_EXAMPLES", "20"))


class RecordMachine(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        self.dir = Path(tempfile.mkdtemp(prefix="tableref-stateful-"))
        self.closed: dict[int, list[str]] = {}  # game id -> its moves when it was closed
        self.svc: Service | None = None
        self._open()
        self.model: list[str] = list(self.svc.referee.record.moves)
        self.game_id = self.svc.referee.record.id

    # -- the service --------------------------------------------------------------------------

    def _open(self) -> None:
        self.svc = Service(self.dir / "j.sqlite3", self.dir / "admin.json", settle=0, readings=1,
                           threaded=False, heartbeat=0.01, pin_hash=FAST_SCRYPT).start()
        self.client = self.svc.app.test_client()
        token = self.client.get("/api/session").get_json()["csrf"]
        url = "/api/login" if self.svc.app.extensions["tableref_admin"].pin_set else "/api/pin"
        assert self.client.post(url, json={"pin": PIN}, headers={"X-CSRF-Token": token}).status_code == 200
        self.token = token

    def post(self, path: str, body: dict | None = None):
        return self.client.post(path, json=body or {}, headers={"X-CSRF-Token": self.token})

    def teardown(self) -> None:
        if self.svc is not None:
            self.svc.close()
        shutil.rmtree(self.dir, ignore_errors=True)

    @property
    def referee(self):
        return self.svc.referee

    def _board(self, view) -> None:
        """The players leave the board showing ``view`` (a sensor scan follows)."""
        self.svc.table.sim.reset(view)
        self.svc.table._sim_changed()

    def _after(self, allowed_takeback: bool) -> None:
        """Fold the step into the model: moves may be added; taken back only where allowed."""
        rec = self.referee.record
        if rec.id != self.game_id:  # a new game began: the old one must be exactly as modelled
            with Journal(self.svc.journal_path) as j:
                assert j.load(self.game_id).moves == self.model, "a new game changed the old game's record"
            self.closed[self.game_id] = list(self.model)
            self.game_id, self.model = rec.id, []
        moves = list(rec.moves)
        common = 0
        while common < min(len(moves), len(self.model)) and moves[common] == self.model[common]:
            common += 1
        if common < len(self.model):
            assert allowed_takeback, f"accepted moves {self.model[common:]} lost without an undo or a restore"
        self.model = moves

    # -- steps --------------------------------------------------------------------------------

    @rule(data=st.data())
    def play_a_legal_move_on_the_board(self, data):
        state = self.referee.state
        moves = state.legal_moves()
        if not moves:
            return
        move = moves[data.draw(st.integers(0, len(moves) - 1), label="move")]
        self._board(state.successor(move).view(self.referee.fidelity))
        self._after(allowed_takeback=False)

    @rule(data=st.data())
    def play_two_moves_unseen(self, data):
        """The board is not looked at in between: two moves show as one change."""
        state = self.referee.state
        moves = state.legal_moves()
        if not moves:
            return
        first = state.successor(moves[data.draw(st.integers(0, len(moves) - 1), label="first")])
        after = first.legal_moves()
        if first.is_game_over() or not after:
            return
        second = first.successor(after[data.draw(st.integers(0, len(after) - 1), label="second")])
        self._board(second.view(self.referee.fidelity))
        self._after(allowed_takeback=False)

    @rule(data=st.data())
    def say_which_unseen_moves_were_played(self, data):
        open_ = self.svc.table.snapshot()["unseen"]
        if not open_:
            return
        q = open_[data.draw(st.integers(0, len(open_) - 1), label="question")]
        choice = q["choices"][data.draw(st.integers(0, len(q["choices"]) - 1), label="choice")]
        self.post("/api/unseen", {"first_ply": q["first_ply"], "number": choice["number"]})
        before = list(self.model)
        # The chosen sequence replaces the recorded one: the same number of moves, same position.
        rec = self.referee.record
        assert rec.moves[q["first_ply"]:q["first_ply"] + q["count"]] == choice["text"].split() or " " in choice["text"]
        assert len(rec.moves) == len(before)
        self.model = list(rec.moves)

    @rule(seed=st.integers(0, 2**16))
    def disturb_the_board(self, seed):
        rng = random.Random(seed)
        view = dict(self.svc.table.sim.view.items())
        spaces = list(get_game(self.referee.record.game).board().space_ids)
        if view and rng.random() < 0.6:
            del view[rng.choice(sorted(view))]
        else:
            palette = self.svc.table.sim.palette or ("1",)
            view[rng.choice(spaces)] = (rng.choice(palette),)
        from rules import View

        board = View(view)
        fid = self.referee.fidelity
        # A disturbance that happens to show an earlier position of this game is the players
        # restoring it: a takeback they may make.
        earlier = any(s.view(fid).matches(board) for s in self.referee.record.states[:-1])
        self._board(board)
        self._after(allowed_takeback=earlier)
        if self.referee._status and self.referee._status[0] == "illegal":
            assert self.svc.table.snapshot()["board_status"].get("fixes"), "illegal with nothing to change"

    @rule()
    def put_the_board_right(self):
        self._board(self.referee.state.view(self.referee.fidelity))
        self._after(allowed_takeback=False)

    @rule(depth=st.integers(1, 3))
    def put_an_earlier_position_back(self, depth):
        states = self.referee.record.states
        if len(states) <= depth:
            return
        self._board(states[-1 - depth].view(self.referee.fidelity))
        self._after(allowed_takeback=True)

    @rule()
    def undo(self):
        assert self.post("/api/undo").status_code in (202, 409)
        self._after(allowed_takeback=True)
        if self.referee._status and self.referee._status[0] == "illegal":
            assert self.svc.table.snapshot()["board_status"].get("fixes"), "illegal with nothing to put back"

    @rule(data=st.data())
    def declare(self, data):
        offered = self.svc.table.snapshot()["declarable"]
        if not offered:
            return
        move = offered[data.draw(st.integers(0, len(offered) - 1), label="declared")]["move"]
        self.post("/api/declare", {"move": move})
        self._after(allowed_takeback=False)

    @rule(data=st.data())
    def confirm(self, data):
        question = self.svc.table.snapshot()["question"]
        if not question:
            return
        choice = question[data.draw(st.integers(0, len(question) - 1), label="choice")]
        self.post("/api/confirm", {"number": choice["number"]})
        self._after(allowed_takeback=bool(choice.get("takeback")))

    @rule(setup=st.sampled_from(["default", "start"]))
    def new_game_from_the_page(self, setup):
        assert self.post("/api/new-game", {"game": "gyges", "setup": setup}).status_code == 202
        self._after(allowed_takeback=False)
        assert self.referee.record.id != self.game_id or not self.model

    @rule()
    def new_game_from_the_panel(self):
        self.svc.submit(StartGame("gyges", {}, "default"))  # the long press: a physical board
        self._after(allowed_takeback=False)

    @rule()
    def restart_the_service(self):
        self.svc.close()
        self._open()
        self._after(allowed_takeback=False)

    # -- what must always hold ----------------------------------------------------------------

    @invariant()
    def journal_referee_and_page_agree(self):
        rec = self.referee.record
        with Journal(self.svc.journal_path) as j:
            journalled = j.load(rec.id).moves
            for gid, moves in self.closed.items():
                assert j.load(gid).moves == moves, f"closed game {gid} changed"
        page = self.client.get("/api/state").get_json()
        assert list(journalled) == list(rec.moves) == page["moves"]
        assert page["game_id"] == rec.id
        assert self.model == list(rec.moves)


RecordMachine.TestCase.settings = settings(max_examples=EXAMPLES, stateful_step_count=25, deadline=None,
                                           suppress_health_check=[HealthCheck.too_slow])
TestRecordMachine = RecordMachine.TestCase
