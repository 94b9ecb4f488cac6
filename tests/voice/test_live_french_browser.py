"""In a real browser (Debian chromium, the shared fixture): an Annihilation game on the live
page of a French browser — the moves in the log in the game's French words, an illegal board's
fix line, then a move part-way with what is still to do (the obligation) — all in French.
Screenshot: tests/artifacts/live-fr.png."""

from __future__ import annotations

import re
import sys
from collections import Counter
from pathlib import Path

from rules import Fidelity, View, get_game

sys.path.insert(0, str(Path(__file__).parents[1] / "browser"))
from browserhelp import running  # noqa: E402

ARTIFACTS = Path(__file__).parents[1] / "artifacts"
MOVES = ("0@b5", "1@B", "1@W")  # then Black's 8@B>W*>a1, shown part-way


def show(table, view: View) -> None:
    """Set the simulated board to ``view`` as hands do (pieces lifted, then put down), with a
    hand over the board meanwhile so no half-made board is judged."""
    table.sim_edit("hand_over", over=True)
    now = View.from_dict(table.sim.to_dict()["view"])
    for space in sorted(now.diff(view)):
        for token in (Counter(now.get_tokens(space)) - Counter(view.get_tokens(space))).elements():
            table.sim_edit("take", space=space, token=token)
    for space in sorted(now.diff(view)):
        for token in (Counter(view.get_tokens(space)) - Counter(now.get_tokens(space))).elements():
            table.sim_edit("put", space=space, token=token)
    while table.sim.to_dict()["hand"]:
        table.sim_edit("discard")
    table.sim_edit("hand_over", over=False)


def test_live_page_in_french_decision_fix_and_obligation(browser, tmp_path):
    with running(tmp_path, game="annihilation", setup="default") as (svc, url):
        page = browser.new_page(locale="fr-FR", viewport={"width": 1280, "height": 1000})
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(url)
        page.click("#pin-cancel")  # watching
        state = get_game("annihilation").default_setup()
        for ply, text in enumerate(MOVES, start=1):
            state = state.apply_text(text)
            show(svc.table, state.view(Fidelity.KIND))
            page.wait_for_selector(f"#moves li:nth-child({ply})")
        page.wait_for_selector("#decision .headline:has-text('Blanc a joué 1@W')")
        detail = page.inner_text("#decision .detail")
        assert detail == "Blanc introduit un 1 sur le point d'émergence de Blanc"  # the game's words

        # An illegal board: White's 1 pushed off its point of emergence onto c3, then put back.
        good = state.view(Fidelity.KIND)
        bad = dict(good.to_dict())
        bad["c3"] = bad.pop("W")
        show(svc.table, View(bad))
        page.wait_for_selector("#decision[data-kind='illegal']")
        card = page.inner_text("#decision")
        assert "Coup illégal — remettez le plateau en place" in card
        assert "ramenez le Blanc 1 de c3 en W" in card  # the fix line, the piece in French
        show(svc.table, good)
        page.wait_for_selector("#decision[data-kind='ok'], #decision[data-kind='accepted']")

        # Black's 8 from its reserve: White's 1 already on a1, the rest still to do.
        after = state.apply_text("8@B>W*>a1").view(Fidelity.KIND)
        part = dict(good.to_dict())
        part["a1"] = list(after.get_tokens("a1"))
        show(svc.table, View(part))
        page.wait_for_selector("#decision[data-kind='partial']")
        card = page.inner_text("#decision")
        assert "Coup en cours… terminez-le sur le plateau" in card and "On dirait 8@B>W*>a1" in card
        todo = page.locator("#decision li").all_inner_texts()
        assert todo and all(re.match(r"(posez|enlevez|ramenez) ", line) for line in todo), todo
        assert any("Noir 8" in line for line in todo), todo  # Black's 8 still to come out of its reserve
        log = page.inner_text("#log")
        assert "plateau illégal — à remettre : ramenez le Blanc 1 de c3 en W" in log
        assert "Noir introduit un 1 sur le point d'émergence de Noir" in log
        assert "Blanc pose un annihilateur sur b5" in log
        for english in ("Black", "White", "illegal board", "put back", "introduces", "annihilator"):
            assert english not in page.inner_text("body"), english
        ARTIFACTS.mkdir(exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / "live-fr.png"), full_page=True)
        assert errors == []
        page.close()
