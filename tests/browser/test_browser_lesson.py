"""A first lesson in a real browser (issue 31, item 3), against ``tableref serve``'s simulated
board: started from the new-game dialog's "First lesson", every step made by clicking the board
as the card says and draws it, to the end; one wrong step refused with the reason and put right.
Screenshots at 1280 and 390 px, English and French, into tests/artifacts/
(lesson-<game>-<width>[-fr].png), Gygès' and Anacund's copied into docs/."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from browserhelp import choose_pin, open_page
from opponenthelp import carry_out, live, poll, position, serving
from rules import Fidelity, View
from rules.lessons import GAMES, lesson

KIND = Fidelity.KIND
DOCS = Path(__file__).resolve().parents[2] / "docs"

# The wrong step each lesson puts right: before step n, a piece moved from a space (None: from the
# box) to another, and what the card says why.
WRONG = {
    "gyges": (8, "f2", "1", "f3", "is not on your closest line"),  # the bounce step; row 1 still has rings
    "anacund": (8, None, "A", "t14", "t14 is a 2"),  # the capture step; a group of 2 is not A's
    "annihilation": (6, "ex_white", "W5", "c3", "a carrier enters play on White's own point of emergence"),
    "drift": (3, "O0", "red-II", "O5", "moves at 2"),  # river entry
    "annelids": (2, None, "segment", "a4n", "touches no annelid"),
}
IN_DOCS = ("gyges", "anacund")  # the docs keep these two games' screenshots; tests/artifacts has all

def card_step(page) -> str:
    return page.get_attribute("#lesson", "data-step") or ""


def todo(page) -> list[dict]:
    return page.eval_on_selector_all(
        "#lesson ol.turn-steps li.todo",
        "els => els.map(e => ({move: e.dataset.move, lift: e.dataset.lift.split(' ').filter(Boolean),"
        " place: e.dataset.place.split(' ').filter(Boolean)}))")


def shoot(page, artifacts, name, width):
    """The board and the lesson's card: the page's top down to the lower of the two's bottom."""
    page.evaluate("window.scrollTo(0, 0)")  # bounding boxes are the viewport's
    card = page.locator("#lesson").bounding_box()
    board = page.locator("#board").bounding_box()
    bottom = max(card["y"] + card["height"], board["y"] + board["height"]) + 8
    height = min(bottom, 1000 if width > 600 else 2000)
    page.screenshot(path=str(artifacts / name), full_page=True, clip={"x": 0, "y": 0, "width": width, "height": height})
    if name.split("-")[1] in IN_DOCS and os.environ.get("TABLEREF_UPDATE_DOCS") == "1":
        shutil.copy(artifacts / name, DOCS / name)  # only when asked: a test run leaves the checkout as it was


def wrong_step(page, game, snap):
    """The board shows something else than the step: refused, the reason, the step said again."""
    _, src, token, dst, why = WRONG[game]
    state = position(snap)
    tried = {space: list(tokens) for space, tokens in dict(state.view(KIND)).items()}
    if src is not None:
        tried[src].remove(token)
    tried.setdefault(dst, []).append(token)
    tried = View(tried)
    carry_out(page, state.view(KIND), tried)
    page.wait_for_selector("#decision[data-kind='illegal'] .why .said")
    said = page.inner_text("#decision .why .said")
    assert why in said, said
    assert page.locator("#decision li").count() >= 1  # what to put back
    poll(lambda: live(page)["lesson"]["repeated"], "the step said again")
    assert live(page)["moves"] == snap["moves"]
    return state, tried


@pytest.mark.parametrize("game", GAMES)
def test_a_first_lesson_to_its_end_with_a_wrong_step_put_right(browser, tmp_path, artifacts, game):
    found = lesson(game)
    with serving(tmp_path, "--game", game) as url:
        page, errors = open_page(browser, url, width=1280, height=900)
        choose_pin(page)
        page.click("#new-game")
        page.select_option("#ng-game", game)
        page.click("#ng-lesson")
        page.wait_for_selector("#lesson[data-step='2']")  # the set-up: the simulated board is set up for it
        assert page.inner_text("#lesson .then").endswith(found.steps[0].then.text)
        phone, phone_errors = open_page(browser, url, width=390, height=844)
        fr = browser.new_page(locale="fr-FR", viewport={"width": 1280, "height": 900})
        fr_phone = browser.new_page(locale="fr-FR", viewport={"width": 390, "height": 844})
        for p in (fr, fr_phone):
            p.goto(url)
        made = 0
        for n, step in enumerate(found.steps[1:], start=2):
            page.wait_for_selector(f"#lesson[data-step='{n}']")
            assert page.inner_text("#lesson .do") == step.do.text
            assert page.get_attribute("#lesson", "data-by") == step.by
            if n == WRONG[game][0]:
                state, tried = wrong_step(page, game, live(page))
                for p, width, name in ((page, 1280, f"lesson-{game}-1280.png"), (phone, 390, f"lesson-{game}-390.png"),
                                       (fr, 1280, f"lesson-{game}-1280-fr.png"),
                                       (fr_phone, 390, f"lesson-{game}-390-fr.png")):
                    p.wait_for_selector("#decision[data-kind='illegal'] .why .said")
                    p.wait_for_selector("#lesson ol.turn-steps li.todo")
                    assert p.evaluate("document.documentElement.scrollWidth") <= width
                    shoot(p, artifacts, name, width)
                assert fr.inner_text("#lesson .headline").startswith("Leçon : étape")
                carry_out(page, tried, state.view(KIND))  # put right
                poll(lambda: live(page)["board_status"]["kind"] == "ok", "the board put back")
            for text in step.moves:
                made += 1
                snap = live(page)
                if len(snap["moves"]) >= made:
                    continue  # a move the board cannot show (DRIFT's end of a turn): declared by the lesson
                shown = todo(page)[0]
                assert shown["move"] == text
                for sp in shown["lift"] or shown["place"]:  # the move drawn on the board
                    assert page.locator(f'#board .b-lift.lesson[data-space="{sp}"], '
                                        f'#board .b-place.lesson[data-space="{sp}"]').count(), sp
                state = position(snap)
                carry_out(page, state.view(KIND), state.apply_text(text).view(KIND), lift=shown["lift"],
                          place=shown["place"])
                poll(lambda: len(live(page)["moves"]) >= made, f"{text} accepted")
        page.wait_for_selector("#lesson[data-step='done']")
        assert page.inner_text("#lesson .end") == found.end.text
        poll(lambda: live(page)["moves"] == [m for s in found.steps for m in s.moves], "every move of the lesson")
        fr.wait_for_selector("#lesson[data-step='done']")
        assert fr.inner_text("#lesson .headline") == "Leçon terminée"
        if found.game_over:
            page.wait_for_selector("#banner:has-text('Game over')")
        page.click("#lesson-close")
        page.wait_for_selector("#lesson", state="hidden")
        narrow, narrow_errors = open_page(browser, url, width=360, height=780)  # the narrowest phone
        narrow.wait_for_selector("#lesson[data-step='done'] .end")
        assert narrow.evaluate("document.documentElement.scrollWidth") <= 360
        box = narrow.locator("#lesson").bounding_box()
        assert box["x"] >= 0 and box["x"] + box["width"] <= 360
        assert not errors and not phone_errors and not narrow_errors, errors + phone_errors + narrow_errors
