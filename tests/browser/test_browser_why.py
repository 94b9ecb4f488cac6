"""Why not in a real browser (issue 31, item 2): an illegal board's card shows what to put back
and, under it, the rule the board breaks — what was tried and why, the rule text's words with
its section — in English and in French; several pieces moved is said plainly."""

from __future__ import annotations

from browserhelp import choose_pin, open_page, running


def test_the_card_shows_the_rule_beside_what_to_put_back(browser, tmp_path, artifacts):
    with running(tmp_path) as (svc, url):
        page, errors = open_page(browser, url, width=390, height=844)
        choose_pin(page)
        svc.table.sim_edit("move", space="a1", to="a4")  # a single ring three spaces on
        page.wait_for_selector("#decision[data-kind='illegal'] .why")
        assert page.inner_text("#decision li") == "move the single ring from a4 back to a1"
        assert page.inner_text("#decision .why .said") == "a single ring moves exactly 1 space: it cannot get from a1 to a4"
        assert page.inner_text("#decision .why .rule") == (
            "Playing a ring: “The number of spaces it can move is equal to its height.”")
        page.screenshot(path=str(artifacts / "why-not-390.png"), full_page=True)

        fr = browser.new_page(locale="fr-FR", viewport={"width": 390, "height": 844})
        fr.goto(url)
        fr.wait_for_selector("#decision[data-kind='illegal'] .why")
        assert fr.inner_text("#decision .why .said") == (
            "l'anneau simple se déplace d'exactement 1 case : il ne peut pas aller de a1 à a4")
        assert fr.inner_text("#decision .why .rule") == (
            "Jouer un anneau : « Le nombre de cases qu'il parcourt est égal à sa hauteur. »")
        fr.screenshot(path=str(artifacts / "why-not-390-fr.png"), full_page=True)

        svc.table.sim_edit("move", space="f1", to="f3")  # a second ring moved too
        page.locator("#decision .why .said", has_text="Several pieces moved").wait_for()
        assert page.locator("#decision .why .rule").count() == 0
        fr.locator("#decision .why .said", has_text="Plusieurs pièces ont bougé").wait_for()
        assert not errors, errors
