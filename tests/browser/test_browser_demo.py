"""A person's path through the demo, each game's live board, and a phone screen."""

from __future__ import annotations

import pytest

from rules import Fidelity, game_names, get_game
from browserhelp import choose_pin, click_space, open_page, running


def decision(page):
    return page.locator("#decision .headline")


def test_a_persons_path_through_the_demo(browser, tmp_path, artifacts):
    # Occupancy sensing, as a plain sensor board reads: some moves can only be told apart
    # by asking, which is the point of this walk.
    with running(tmp_path, fidelity=Fidelity.OCCUPANCY) as (svc, url):
        page, errors = open_page(browser, url)
        page.wait_for_selector("#turn:has-text('South to move')")
        choose_pin(page)

        # South moves the double ring b1 → b3 on the simulated board; the page follows.
        click_space(page, "b1")
        page.wait_for_selector("#hand .piece-btn")
        click_space(page, "b3")
        page.wait_for_selector("#decision .headline:has-text('South played b1-b3')")
        page.wait_for_selector("#turn:has-text('North to move')")
        assert page.locator("#moves li").all_inner_texts() == ["b1-b3"]
        page.screenshot(path=str(artifacts / "demo-1-accepted.png"), full_page=True)

        # North's a6 → a5 could be two moves: the page asks, the person chooses.
        click_space(page, "a6")
        click_space(page, "a5")
        page.wait_for_selector("#choices button.choice")
        assert page.locator("#decision").get_attribute("data-kind") == "ambiguous"
        assert page.locator("#choices button.choice").count() == 2
        page.screenshot(path=str(artifacts / "demo-2-ambiguous.png"), full_page=True)
        page.click("#choices button.choice[data-number='1']")
        page.wait_for_selector("#decision .headline:has-text('North played a6-a5')")
        assert "(confirmed)" in page.inner_text("#decision .detail")
        assert page.locator("#choices button").count() == 0

        # Undo: the move is taken back and the page says what to put back, with an arrow.
        page.click("#undo")
        page.wait_for_selector("#decision[data-kind='taken_back']")
        assert "Took back a6-a5: move the piece from a5 back to a6" in page.inner_text("#decision")
        assert page.locator("#board line.b-arrow").count() == 1
        page.screenshot(path=str(artifacts / "demo-3-undo.png"), full_page=True)
        click_space(page, "a5")
        click_space(page, "a6")
        page.wait_for_selector("#decision .headline:has-text('Took back a6-a5')")
        assert page.locator("#moves li").all_inner_texts() == ["b1-b3"]
        assert not errors, errors

        # The replay: the game from the journal, stepped through by keys and buttons.
        page.click("nav a:has-text('Replay')")
        page.click("#game-rows a:has-text('1') >> nth=0")
        page.wait_for_selector("#step .headline:has-text('Start position')")
        page.keyboard.press("ArrowRight")
        page.wait_for_selector("#step .headline:has-text('1. South: b1-b3')")
        assert page.locator("#board circle.b-hl").count() == 2
        page.click("#prev")
        page.wait_for_selector("#step .headline:has-text('Start position')")
        page.keyboard.press("End")
        page.wait_for_selector("#step .headline:has-text('1. South: b1-b3')")
        assert page.locator("#next").is_disabled()
        page.screenshot(path=str(artifacts / "demo-4-replay.png"), full_page=True)
        assert page.get_attribute("#download", "href") == "/api/journal/1/record"
        assert not errors, errors


def test_a_watcher_sees_moves_arrive_without_reloading(browser, tmp_path):
    with running(tmp_path) as (svc, url):
        page, errors = open_page(browser, url)
        page.wait_for_selector("#turn:has-text('South to move')")
        page.click("#pin-cancel")
        assert page.locator("#undo").is_disabled() and page.is_visible("#watch-hint")
        svc.table.sim_edit("move", space="e1", to="e3")  # someone else moves a piece
        page.wait_for_selector("#decision .headline:has-text('South played e1-e3')")
        assert page.locator("#board circle.b-hl").count() == 2
        assert not errors, errors


@pytest.mark.parametrize("name", game_names())
def test_each_games_live_board_is_drawn(browser, tmp_path, artifacts, name):
    with running(tmp_path, game=name) as (svc, url):
        page, errors = open_page(browser, url)
        page.wait_for_selector("#pin-dialog[open]")
        page.click("#pin-cancel")
        page.wait_for_selector("#board .b-space, #board .b-edge", state="attached")
        board = get_game(name).board()
        # Every space of the board file is drawn, on the live board and the simulated one.
        assert page.locator("#simboard .b-hit").count() == len(board.spaces)
        drawn = page.locator("#board .b-space, #board .b-edge").count()
        assert drawn == len(board.spaces)
        page.screenshot(path=str(artifacts / f"live-{name}.png"), full_page=True)
        assert not errors, errors


def test_the_page_works_on_a_390px_phone(browser, tmp_path, artifacts):
    with running(tmp_path) as (svc, url):
        page, errors = open_page(browser, url, width=390, height=844)
        choose_pin(page)
        click_space(page, "b1")
        click_space(page, "b3")
        page.wait_for_selector("#decision .headline:has-text('South played b1-b3')")
        # Nothing wider than the screen: no sideways scrolling.
        assert page.evaluate("document.documentElement.scrollWidth") <= 390
        box = page.locator("#board").bounding_box()
        assert box["width"] >= 300 and box["x"] >= 0 and box["x"] + box["width"] <= 390
        for sel in ("#undo", "#new-game", "#admin-btn"):
            b = page.locator(sel).bounding_box()
            assert b["x"] + b["width"] <= 390 and b["height"] >= 34, sel
        page.screenshot(path=str(artifacts / "phone-390.png"), full_page=True)
        assert not errors, errors


def test_new_game_dialog_sets_up_another_game(browser, tmp_path):
    with running(tmp_path) as (svc, url):
        page, errors = open_page(browser, url)
        choose_pin(page)
        page.click("#new-game")
        page.select_option("#ng-game", "annihilation")
        page.fill("#ng-opt-target", "30")
        page.click("#ng-ok")
        page.wait_for_selector("#game-title:has-text('Annihilation')")
        page.wait_for_selector("#scores:has-text('first to 30 wins')")
        page.click("#new-game")
        page.select_option("#ng-game", "gyges")
        page.fill("#ng-opt-variant", "sideways")
        page.click("#ng-ok")
        page.wait_for_selector("#ng-error:has-text('variant')")
        assert not errors, errors
