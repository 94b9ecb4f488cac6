"""The computer opponent end to end (issue 30): ``tableref serve --computer`` as a real process,
Debian's chromium on its page, every move made by clicking the simulated board — the person's
own (chosen by the rules engine here) and the computer's as the page shows them (lift, then put
down). Screenshots of the computer's move on the board at 360 px and on a desktop go to
tests/artifacts/ (opponent-move-360.png, opponent-move-desktop.png; copies in docs/)."""

from __future__ import annotations

import random

from rules import Fidelity
import opponenthelp
from browserhelp import choose_pin, open_page
from opponenthelp import (
    carry_out, live, make_move, play_computer_turn, poll, position, serving, shown_steps, wait_for_computer,
    wait_moves,
)

KIND = Fidelity.KIND


def _changes_board(state, move):
    return state.view(KIND) != state.successor(move).view(KIND)


def _wins_at_once(state):
    """The side to move has a move that wins the game."""
    if state.is_game_over():
        return False
    me = state.to_move
    return any((o := state.successor(m).outcome()) is not None and o.winner == me for m in state.legal_moves())


def gyges_move(state, rng, *, end_it):
    """South's move: a win if there is one; else a plain move (no bump) that leaves the computer
    no win (``end_it``: one that gives it the win, so the game ends)."""
    moves = [m for m in state.legal_moves() if _changes_board(state, m)]
    for m in moves:
        out = state.successor(m).outcome()
        if out is not None and out.winner == state.to_move:
            return state.move_text(m)

    def key(m):
        gives = _wins_at_once(state.successor(m))
        return (gives if end_it else not gives, "/" not in state.move_text(m), rng.random())

    return state.move_text(max(moves, key=key))


# Gygès at level 1: South plays its first OWN_MOVES moves to stay in the game, then plays into
# the computer's win (greedy toward its goal), so a whole game stays within about 30 moves.
OWN_MOVES = 8
MAX_PLIES = 60


def test_a_person_plays_a_whole_gyges_game_against_level_1(browser, tmp_path, artifacts):
    with serving(tmp_path, "--computer", "north:1") as url:
        page, errors = open_page(browser, url)
        choose_pin(page)
        page.wait_for_selector("#seats .seat.computer:has-text('North: the computer (level 1)')")
        assert page.inner_text("#seats .seat[data-side='south']") == "South: a person"
        rng = random.Random(30)
        mine = shot = 0
        while True:
            snap = live(page)
            if snap["outcome"]:
                break
            assert len(snap["moves"]) < MAX_PLIES, "the game did not end"
            if snap["to_move"] == "south":
                make_move(page, snap, gyges_move(position(snap), rng, end_it=mine >= OWN_MOVES))
                mine += 1
                continue
            wait_for_computer(page)
            # Its move, in words and on the board: from → to arrows, lift and put-down spaces.
            assert page.inner_text("#computer .headline") == "Make the computer's move on the board"
            assert "North (the computer, level 1) plays:" in page.inner_text("#computer")
            # drawn from the same snapshot as the card, maybe a frame later (a flat arrow has no height:
            # "attached", not "visible")
            try:
                page.locator("#board line.b-turn-arrow.computer").first.wait_for(state="attached", timeout=15000)
            except Exception:
                raise AssertionError(f"no arrow for the computer's turn: {live(page).get('computer')}") from None
            if not shot:
                page.evaluate("document.querySelector('#toast').classList.remove('show'); window.scrollTo(0, 0)")
                page.screenshot(path=str(artifacts / "opponent-move-desktop.png"), clip={
                    "x": 0, "y": 0, "width": 1280, "height": 760})
                shot = 1
            play_computer_turn(page)
        page.wait_for_selector("#banner.over:has-text('Game over')")
        assert page.inner_text("#turn") == "Game over"
        assert page.locator("#computer").is_hidden() and page.locator("#hint-btn").is_hidden()
        assert page.locator("#moves li").count() == len(snap["moves"])
        print(f"gyges: {len(snap['moves'])} moves, {mine} South's; {snap['outcome']}")
        assert not errors, errors


def test_a_wrong_move_for_the_computer_is_refused_and_put_right(browser, tmp_path, artifacts):
    with serving(tmp_path, "--computer", "north:1") as url:
        page, errors = open_page(browser, url)
        choose_pin(page)
        make_move(page, live(page), "a1-a2")
        wait_for_computer(page)
        snap = live(page)
        right = shown_steps(page)[0]
        state = position(snap)
        # A phone beside the board shows it too, with no sideways scrolling.
        phone, phone_errors = open_page(browser, url, width=360, height=800)
        phone.wait_for_selector("#computer[data-kind='computer'] li.todo")
        assert phone.evaluate("document.documentElement.scrollWidth") <= 360
        for sel in ("#board", "#computer"):
            box = phone.locator(sel).bounding_box()
            assert box["x"] >= 0 and box["x"] + box["width"] <= 360, sel
        board = phone.locator("#board").bounding_box()
        phone.screenshot(path=str(artifacts / "opponent-move-360.png"), full_page=True, clip={
            "x": 0, "y": 0, "width": 360, "height": board["y"] + board["height"] + 8})
        # Another move for North than the computer's: refused, what to put back, its move again.
        wrong = next(m for m in state.legal_moves() if state.move_text(m) != right["move"]
                     and "/" not in state.move_text(m) and _changes_board(state, m))
        carry_out(page, state.view(KIND), state.successor(wrong).view(KIND))
        page.wait_for_selector("#decision[data-kind='illegal'] .then-computer")
        said = page.inner_text("#decision")
        assert "Not a legal move — put the board back" in said
        assert f"then make the computer's move: {right['move']}" in said
        assert live(page)["computer"]["repeated"] and live(page)["moves"] == ["a1-a2"]
        phone.wait_for_selector("#decision .then-computer")
        assert phone.evaluate("document.documentElement.scrollWidth") <= 360
        # Put back, then the computer's move: accepted.
        carry_out(page, state.successor(wrong).view(KIND), state.view(KIND))
        poll(lambda: live(page)["board_status"]["kind"] == "ok", "the board put back")
        assert play_computer_turn(page) == 2
        assert live(page)["moves"] == ["a1-a2", right["move"]]
        page.wait_for_selector(f"#decision .headline:has-text('North played {right['move']}')")
        assert page.locator("#computer").is_hidden()
        phone.close()
        assert not errors and not phone_errors, (errors, phone_errors)


def test_an_undo_takes_back_the_persons_move_and_the_computers_reply(browser, tmp_path):
    with serving(tmp_path, "--computer", "north:1") as url:
        page, errors = open_page(browser, url)
        choose_pin(page)
        before = live(page)
        make_move(page, before, "b1-b3")
        play_computer_turn(page)
        snap = live(page)
        reply = snap["moves"][1]
        page.click("#undo")
        page.wait_for_selector("#decision .headline:has-text(\"Took back your move and the computer's reply\")")
        assert f"b1-b3, {reply}" in page.inner_text("#decision .detail")
        assert page.locator("#decision li").count() >= 2  # what to put back, piece by piece
        assert page.locator("#moves li").count() == 0
        # The board put back by hand: South to move again, nothing left to do.
        carry_out(page, position(snap).view(KIND), position(before).view(KIND))
        poll(lambda: live(page)["board_status"]["kind"] == "ok", "the board put back")
        page.wait_for_selector("#turn:has-text('South to move')")
        assert page.locator("#computer").is_hidden()
        assert not errors, errors


def test_a_hint_is_drawn_apart_and_gone_when_a_move_is_made(browser, tmp_path):
    with serving(tmp_path, "--computer", "north:1") as url:
        page, errors = open_page(browser, url)
        page.wait_for_selector("#pin-dialog[open]")
        page.click("#pin-cancel")
        assert page.locator("#hint-btn").is_hidden()  # watching: no hint
        page.click("#admin-btn")
        choose_pin(page)
        page.click("#hint-btn")
        page.wait_for_selector("#computer[data-kind='hint'] li.todo")
        assert page.inner_text("#computer .headline") == "Hint: what the computer (level 2) would play"
        assert page.locator("#board line.b-turn-arrow.hint").count() >= 1
        assert page.locator("#board text.b-turn-text.hint").all_text_contents() == ["hint"]
        assert page.locator("#board .b-turn-arrow.computer").count() == 0
        assert live(page)["moves"] == []  # never played
        make_move(page, live(page), "a1-a2")
        page.wait_for_selector("#computer[data-kind='computer']")  # the computer's turn now, the hint gone
        assert page.locator("#board .hint").count() == 0
        assert not errors, errors


def _own_move(state, rng):
    """A DRIFT move of the person's own piece that keeps the turn theirs (one piece lifted and
    put down), or None."""
    me, kind = state.to_move, state.view(KIND)
    fits = []
    for m in state.legal_moves():
        after = state.successor(m)
        if after.to_move == me and not after.is_game_over() and len(kind.diff(after.view(KIND))) == 2 \
                and state.move_text(m).startswith(f"{me}-"):
            fits.append(m)
    return state.move_text(rng.choice(fits)) if fits else None


# DRIFT, red a person and blue and green the computer at level 1: ROUNDS whole rounds (each
# player's turn, then the drift phase: the three rivers turned, by hand), not to the end — a
# DRIFT game runs to many rounds.
ROUNDS = 4


def test_drift_with_two_computer_seats_and_one_person(browser, tmp_path, artifacts):
    with serving(tmp_path, "--game", "drift", "--computer", "blue:1", "--computer", "green:1") as url:
        page, errors = open_page(browser, url)
        page.on("dialog", lambda d: d.accept())  # "Red ends the turn?"
        choose_pin(page)
        assert page.locator("#seats .seat").all_inner_texts() == [
            "Red: a person", "Blue: the computer (level 1)", "Green: the computer (level 1)"]
        rng = random.Random(30)
        rounds = computer_turns = declared_turns = 0
        moved = False
        opponenthelp.TICKED.clear()
        while rounds < ROUNDS:
            snap = live(page)
            assert not snap["outcome"], snap["outcome"]
            state = position(snap)
            if snap["phase"] == "drift":  # the round is over: the person turns the rivers
                page.wait_for_selector("#banner.phase")
                make_move(page, snap, "drift")
                rounds += 1
            elif snap["to_move"] == "red":
                page.wait_for_selector("#turn:has-text('Red to move')")
                can_end = any(d["move"] == "end" for d in snap["declarable"])
                if not (moved and can_end):  # one move of red's own, then the turn ended
                    move = _own_move(state, rng)
                    assert move, "red has no move of its own"
                    make_move(page, snap, move)
                    moved = True
                    continue
                moved = False
                page.click('#declare button[title^="end:"]')
                wait_moves(page, len(snap["moves"]) + 1)
            else:
                assert snap["to_move"] in ("blue", "green")
                # A turn with nothing for the board (level 1 may end its turn at once) is
                # declared by the computer and recorded at once: no card to carry out.
                poll(lambda: shown_steps(page) or len(live(page)["moves"]) > len(snap["moves"]),
                     "the computer's move, or its turn declared", timeout=30.0)
                if not shown_steps(page):
                    declared_turns += 1
                    continue
                side = cap = snap["to_move"].capitalize()
                assert f"{cap} (the computer, level 1) plays:" in page.inner_text("#computer")
                if computer_turns == 1:
                    page.evaluate("window.scrollTo(0, 0)")
                    page.screenshot(path=str(artifacts / "opponent-drift.png"))
                play_computer_turn(page)
                computer_turns += 1
                assert side
        # Each round both computer seats played: most turns carried out by hand, the rest (a
        # turn ended at once; two such in a row are seen as one) declared.
        assert computer_turns >= ROUNDS and computer_turns + declared_turns <= 2 * ROUNDS
        assert opponenthelp.TICKED, "no turn of several moves was ticked step by step"
        page.wait_for_selector("#turn:has-text('Red to move')")
        assert not errors, errors


def _annihilation_move(state, rng):
    """White's turn: the most points, a board change the sensors see."""
    moves = [m for m in state.legal_moves() if _changes_board(state, m)]
    return state.move_text(max(moves, key=lambda m: (state.successor(m).scores().get(state.to_move, 0), rng.random())))


def _page_scores(page):
    names = page.locator("#scores .score small").all_inner_texts()
    return dict(zip((n.lower() for n in names), page.locator("#scores .score b").all_inner_texts()))


# Annihilation to 20 against level 1: White takes the most points each turn; to the end, or
# MAX_TURNS turns (the computer's search is cut by time: its games differ from run to run).
MAX_TURNS = 40


def test_annihilation_against_the_computer_keeps_the_score(browser, tmp_path):
    with serving(tmp_path, "--game", "annihilation", "--option", "target=20", "--computer", "black:1") as url:
        page, errors = open_page(browser, url)
        choose_pin(page)
        page.wait_for_selector("#scores:has-text('first to 20 wins')")
        rng = random.Random(30)
        seen = [tuple(sorted(_page_scores(page).items()))]
        computer_turns = 0
        assert seen == [(("black", "0"), ("white", "0"))]
        while True:
            snap = live(page)
            if snap["outcome"] or len(snap["moves"]) >= MAX_TURNS:
                break
            if snap["to_move"] == "white":
                make_move(page, snap, _annihilation_move(position(snap), rng))
            else:
                play_computer_turn(page)
                computer_turns += 1
            snap = live(page)
            want = {k: str(v) for k, v in snap["scores"].items()}
            poll(lambda: _page_scores(page) == want, f"the page shows the scores {want}")
            if tuple(sorted(want.items())) != seen[-1]:
                seen.append(tuple(sorted(want.items())))
        assert len(seen) >= 3, seen  # the scores changed on the page, turn after turn
        assert computer_turns >= 3
        if snap["outcome"]:
            page.wait_for_selector("#banner.over:has-text('Game over')")
            assert snap["scores"][snap["outcome"]["winner"]] >= 20
            assert page.locator("#computer").is_hidden()
        print(f"annihilation: {len(snap['moves'])} turns, {computer_turns} the computer's, "
              f"{'over' if snap['outcome'] else 'not over'}; the scores {seen}")
        assert not errors, errors


def test_the_new_game_dialog_seats_the_computer_in_french_on_a_phone(browser, tmp_path):
    with serving(tmp_path) as url:
        page, errors = open_page(browser, url, width=360, height=800)
        choose_pin(page)
        page.context.add_cookies([{"name": "tableref_lang", "value": "fr", "url": url}])
        page.reload()
        page.wait_for_selector("#admin-btn:has-text('Se déconnecter')")
        assert page.locator("#seats").is_hidden()  # nobody but people: no seats line
        page.click("#new-game")
        # DRIFT: a seat for each colour of its players option, as many as it names.
        page.select_option("#ng-game", "drift")
        assert page.locator("#ng-seat-rows label").all_inner_texts() == ["Rouge", "Bleu", "Vert"]
        assert page.locator("#ng-seat-blue option").all_inner_texts()[:2] == [
            "une personne ici", "l'ordinateur, niveau 1 (débutant)"]
        page.fill("#ng-opt-players", "red:circle,blue:square,green:hexagon,yellow:triangle")
        page.wait_for_selector("#ng-seat-yellow")
        assert page.locator("#ng-seat-rows select").count() == 4
        assert page.evaluate("document.documentElement.scrollWidth") <= 360
        box = page.locator("#ng-seat-yellow").bounding_box()
        assert box["x"] >= 0 and box["x"] + box["width"] <= 360
        # Gygès, the computer North at level 1.
        page.select_option("#ng-game", "gyges")
        assert page.locator("#ng-seat-rows label").all_inner_texts() == ["Sud", "Nord"]
        page.select_option("#ng-seat-north", "computer:1")
        page.click("#ng-ok")
        page.wait_for_selector("#seats .seat.computer:has-text('Nord : l\\'ordinateur (niveau 1)')")
        assert page.inner_text("#seats .seat[data-side='south']") == "Sud : une personne"
        page.click("#hint-btn")  # "Que jouerait l'ordinateur ?"
        page.wait_for_selector("#computer[data-kind='hint'] li.todo")
        assert page.inner_text("#computer .headline") == "Conseil : ce que jouerait l'ordinateur (niveau 2)"
        make_move(page, live(page), "a1-a2")
        wait_for_computer(page)
        assert page.inner_text("#computer .headline") == "Jouez le coup de l'ordinateur sur le plateau"
        assert "Nord (l'ordinateur, niveau 1) joue :" in page.inner_text("#computer")
        step = page.inner_text("#computer li.todo")
        assert "anneau" in step and "soulevez en" in step, step  # the move in French words
        assert page.evaluate("document.documentElement.scrollWidth") <= 360
        assert not errors, errors


def test_the_page_says_the_computer_is_thinking(browser, tmp_path):
    """Level 5 thinks for seconds (2.5 s on the bench): long enough to see it say so."""
    with serving(tmp_path, "--computer", "north:5") as url:
        page, errors = open_page(browser, url)
        choose_pin(page)
        page.wait_for_selector("#seats .seat.computer:has-text('North: the computer (level 5)')")
        make_move(page, live(page), "c1-c3")
        page.wait_for_selector("#computer.thinking .headline:has-text('The computer is thinking…')")
        assert page.inner_text("#computer .detail") == "North: the computer (level 5)"
        assert page.locator("#board .b-turn-arrow").count() == 0  # nothing to draw yet
        wait_for_computer(page, timeout=30000)
        assert page.locator("#computer.thinking").count() == 0
        assert not errors, errors
