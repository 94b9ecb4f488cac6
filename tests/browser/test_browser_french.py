"""Every page, in each state a game goes through, in a French browser (issue 33, item 1): the
live page at each decision kind (a new game, a move, a question, a confirmed move, an undo, a
move part-way, an illegal board, a refused command, a set-up phase, game over), the new-game
dialog, the PIN dialog, the games list, a replay, the set-up page with and without a camera —
all from the catalog, with no English word left (as tests/voice/test_french_everywhere.py
checks the spoken sentences). Dates as the French write them."""

from __future__ import annotations

import re
import sys
from pathlib import Path

from rules import Fidelity
from tableref.serve import Service
from browserhelp import running

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "web"))
from setupscene import SceneCamera, asked_for_less_exposure, camera_feed  # noqa: E402

# English words no French page of ours shows (words both languages write alike — position,
# options, table, pile, simple, double, segments, total, bonus, place, on, met, coin — are left out, and
# so are the option values typed in the new-game dialog: kings, loop, line).
ENGLISH = set("""
the and to of from into onto with at by its it is an has was then after every both
ring rings throne river rivers annelid annelids tail piece pieces square squares group
turn turned put take takes back move moves moved captures captured left annihilated annihilator
hit stopped against lost introduces cannot grows runs resigns attacks goes home leaves play
clockwise arrow arrows round over ends free next reached draw higher single copper silver gold
outer inner middle made board looks same confirmed illegal waiting still do one two three
white black south north red blue green yellow player players
game games played start result import record download all keys step camera setup set-up
calibration empty learn lens reserve won abandoned progress loading took resumed started variant
default refused confirm undo new log out watching live replay simulated hand box
nothing could like which choose should shows first last previous phase now wins none
""".split())
WORD = re.compile(r"[A-Za-zÀ-ÿ][A-Za-zÀ-ÿ'-]*")
PATH = re.compile(r"\S*/\S*|\"[^\"]*\"")  # file paths, URLs and quoted config values are code, not words


def english(text: str) -> list[str]:
    words = set()
    for w in WORD.findall(PATH.sub(" ", text)):
        words |= {w.lower(), *w.lower().split("'"), *w.lower().split("-")}
    return sorted(words & ENGLISH)


def check(page, where: str, selector: str = "body") -> str:
    text = page.inner_text(selector) + "\n" + page.title()
    for dialog in page.locator("dialog[open]").all():
        text += "\n" + dialog.inner_text()
    left = english(text)
    assert not left, f"{where}: English on the French page: {left}\n{text}"
    return text


def kind(page, name: str) -> None:
    page.wait_for_selector(f"#decision[data-kind='{name}']")
    page.wait_for_timeout(150)  # the rest of the page is drawn from the same snapshot


def test_every_page_and_every_decision_kind_in_french(browser, tmp_path, artifacts):
    # Occupancy sensing, so that a move can be a question.
    with running(tmp_path, fidelity=Fidelity.OCCUPANCY) as (svc, url):
        page = browser.new_page(locale="fr-FR", viewport={"width": 1280, "height": 1000})
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(url)
        page.wait_for_selector("#pin-dialog[open]")
        assert "Choisissez un code PIN" in check(page, "the first PIN")
        page.fill("#pin-input", "12")
        page.click("#pin-ok")
        page.wait_for_selector("#pin-error:has-text('chiffres')")  # the server's refusal, in French
        page.fill("#pin-input", "2468")
        page.click("#pin-ok")
        page.wait_for_selector("body.is-admin")
        kind(page, "new_game")
        assert "Au tour de Sud" in check(page, "a new game")
        table = svc.table

        table.sim_edit("move", space="b1", to="b3")
        kind(page, "accepted")
        check(page, "a move")
        table.sim_edit("move", space="a6", to="a5")
        kind(page, "ambiguous")
        check(page, "a question")
        page.click("#choices button.choice[data-number='1']")
        page.wait_for_selector("#decision .detail:has-text('confirmé')")
        check(page, "a confirmed move")
        page.click("#undo")
        kind(page, "taken_back")
        assert "Coup a6-a5 repris : ramenez la pièce de a5 en a6" in check(page, "an undo")
        table.sim_edit("move", space="a5", to="a6")
        page.wait_for_selector("#decision[data-kind='taken_back']:not(:has(li)) .headline:text-is('Coup a6-a5 repris')")
        check(page, "the board put back")

        table.sim_edit("take", space="e6")  # North's ring in the hand: part-way
        kind(page, "partial")
        check(page, "a move part-way")
        table.sim_edit("put", space="e6")
        table.sim_edit("hand_over", over=True)  # two of South's rings lifted: no move of North's
        table.sim_edit("take", space="a1")
        table.sim_edit("take", space="f1")
        table.sim_edit("hand_over", over=False)
        kind(page, "illegal")
        assert "posez la pièce en a1" in check(page, "an illegal board")
        table.sim_edit("put", space="a1")
        table.sim_edit("put", space="f1")
        page.wait_for_selector("#decision:not([data-kind='illegal'])")
        table.confirm(1)  # no question open: refused
        page.wait_for_selector("#decision .notice")
        assert "confirmer 1 refusé : aucune question en cours" in check(page, "a refused command")

        page.click("#new-game")
        page.select_option("#ng-game", "gyges")
        assert "prises de Nord" in check(page, "the new-game dialog")
        page.select_option("#ng-game", "anacund")
        check(page, "the new-game dialog, Anacund")
        page.select_option("#ng-setup", "start")
        page.select_option("#ng-game", "gyges")
        page.click("#ng-ok")
        page.wait_for_selector("#banner.phase")
        check(page, "a set-up phase")

        table.new_game("annelids", {}, "default")
        page.wait_for_selector("#game-title:has-text('Annélides')")
        table.declare("resign")
        page.wait_for_selector("#banner.over")
        text = check(page, "game over")
        assert "partie terminée" in text
        page.screenshot(path=str(artifacts / "live-fr-over.png"), full_page=True)

        page.goto(url + "replay")
        page.wait_for_selector("#game-rows a")
        text = check(page, "the games list")
        assert re.search(r"\b\d\d/\d\d/\d{4} \d\d:\d\d\b", text), text  # 29/11/2026 14:05
        assert "Gygès" in text and "Annélides" in text
        page.goto(url + "replay/1")
        page.wait_for_selector("#step .headline:has-text('Position de départ')")
        assert page.inner_text("#replay-title") == "Gygès · partie 1 · 1 coup · abandonnée"  # one move: singular
        check(page, "a replay's start")
        page.keyboard.press("End")
        page.wait_for_selector("#step .headline:has-text('1. Sud : b1-b3')")
        check(page, "a replay's last move")
        page.goto(url + "replay/3")  # Annelids, resigned
        page.keyboard.press("End")
        page.wait_for_selector("#replay-title:has-text('a gagné')")
        check(page, "a replay of a finished game")
        page.goto(url + "setup")
        page.wait_for_selector("body.is-admin")
        check(page, "the set-up page without a camera")
        assert errors == []
        page.close()


def test_the_camera_set_up_page_in_french(browser, tmp_path):
    camera = SceneCamera("gyges")
    svc = Service(tmp_path / "j.sqlite3", tmp_path / "admin.json", game="gyges", pin_hash="scrypt:1024:8:1",
                  settle=0.15, readings=2, feed=camera_feed(camera, tmp_path / "gyges.npz"))
    svc.start()
    try:
        url = svc.serve_http("127.0.0.1", 0)
        page = browser.new_page(locale="fr-FR", viewport={"width": 1280, "height": 1000})
        page.goto(url + "setup")
        page.wait_for_selector("#pin-dialog[open]")
        page.fill("#pin-input", "2468")
        page.click("#pin-ok")
        page.wait_for_selector("#overlay polygon.o-outline")
        page.wait_for_selector("#lock-state:has-text('Plateau repéré')")
        text = check(page, "the camera's set-up page")
        assert "Réglage de la caméra" in text and "Apprendre le plateau vide" in text
        assert "ce dont Annélides a besoin" in text  # the lens step, from the catalog
        # on a phone, as the admin, with the exposure asked for the sheet said beside the lock
        page.set_viewport_size({"width": 360, "height": 740})
        with asked_for_less_exposure(camera, svc):
            page.wait_for_selector("#lock-state:has-text('Exposition baissée de 0.5 IL pour la feuille')")
            check(page, "the set-up page at 360 px, the exposure turned down")
            assert page.evaluate("document.documentElement.scrollWidth") <= 360
        page.close()
    finally:
        svc.close()
