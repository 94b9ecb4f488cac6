"""Two moves seen as one change (issue 24, item 6): the page asks which was played, without
holding up play, and the answer reaches the record."""

from __future__ import annotations

from rules import Fidelity, get_game
from browserhelp import choose_pin, open_page, running

PLAYED = ("d1-c1/d5", "c6-d6/b3")


def test_the_page_asks_which_unseen_moves_were_played(browser, tmp_path, artifacts):
    gyges = get_game("gyges")
    with running(tmp_path) as (svc, url):
        page, errors = open_page(browser, url)
        page.wait_for_selector("#turn:has-text('South to move')")
        choose_pin(page)
        # The board changes by two moves while nobody looks (a camera that missed the board).
        board = gyges.default_setup().apply_text(PLAYED[0]).apply_text(PLAYED[1]).view(Fidelity.KIND)
        svc.table.sim.reset(board)
        svc.table._sim_changed()
        page.wait_for_selector("#unseen .headline:has-text('never seen one by one')")
        page.wait_for_selector("#turn:has-text('South to move')")  # play goes on meanwhile
        assert page.locator("#unseen button.choice").count() == 3
        page.screenshot(path=str(artifacts / "unseen-question.png"), full_page=True)
        page.click(f"#unseen button.choice:has-text('{' '.join(PLAYED)}')")
        page.wait_for_selector("#unseen", state="hidden")
        assert page.locator("#moves li").all_inner_texts() == list(PLAYED)
        assert svc.referee.record.moves == list(PLAYED)
        # Moves the board cannot show are folded away, saying why, and stay open across updates.
        page.click("#declare details.unseen-moves summary")
        assert page.locator("#declare details.unseen-moves button").count() >= 1
        svc.table.sim.reset(svc.referee.state.view(Fidelity.KIND))
        svc.table._sim_changed()
        page.wait_for_timeout(300)
        assert page.locator("#declare details.unseen-moves[open]").count() == 1
        assert not errors, errors
