"""The page's words and drawings in a real browser (issue 33, item 3): an undo says what it did
and what to put back, not "illegal"; a put-back hint leaves the space's name readable; the
replay's step buttons are drawn; the games list names the game by its title; the set-up page
shows no camera legend without a camera."""

from __future__ import annotations

from browserhelp import choose_pin, open_page, running

# Any two SVG text boxes of the board that overlap: a "+3" hint over a space's printed name.
OVERLAPS = """() => {
  const box = (e) => e.getBoundingClientRect();
  const hit = (a, b) => a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
  const out = [];
  for (const h of document.querySelectorAll('#board .b-fix-text'))
    for (const id of document.querySelectorAll('#board .b-id'))
      if (hit(box(h), box(id))) out.push(h.textContent + ' over ' + id.textContent);
  return out;
}"""


def test_undo_says_what_it_did_and_the_hint_leaves_the_label_readable(browser, tmp_path):
    with running(tmp_path) as (svc, url):
        page, errors = open_page(browser, url)
        choose_pin(page)
        svc.table.sim_edit("move", space="c1", to="c3")
        page.wait_for_selector("#decision .headline:has-text('South played c1-c3')")
        page.click("#undo")
        head = page.locator("#decision .headline")
        head.filter(has_text="Took back").wait_for()
        assert head.inner_text() == "Took back c1-c3: move the triple ring from c3 back to c1"
        assert page.get_attribute("#decision", "data-kind") == "taken_back"  # not the red "illegal"
        assert "legal" not in page.inner_text("#decision")
        svc.table.sim_edit("move", space="c3", to="c1")
        page.wait_for_selector("#decision[data-kind='new_game'], #decision[data-kind='taken_back']:not(:has(li))")

        # A triple ring swapped for a single one from the box: "+3" on c1, beside c1's name.
        svc.table.sim_edit("hand_over", over=True)
        svc.table.sim_edit("take", space="c1")
        svc.table.sim_edit("discard")
        svc.table.sim_edit("put", space="c1", token="1")
        svc.table.sim_edit("hand_over", over=False)
        page.wait_for_selector("#board .b-fix-text")
        assert page.locator("#board .b-fix-text").first.text_content() == "+3"
        assert page.get_attribute("#decision", "data-kind") == "illegal"  # a board gone wrong later is no undo
        assert page.evaluate(OVERLAPS) == []
        assert not errors, errors


def test_replay_buttons_drawn_games_named_by_title_no_camera_legend(browser, tmp_path):
    with running(tmp_path) as (svc, url):
        page, errors = open_page(browser, url + "replay")
        choose_pin(page)
        page.wait_for_selector("#game-rows a")
        assert page.locator("#game-rows tr").first.locator("td").nth(1).inner_text() == "Gygès"
        page.click("#game-rows a >> nth=0")
        page.wait_for_selector("#step .headline")
        for button in ("#first", "#prev", "#next", "#last"):
            icon = page.locator(f"{button} svg").bounding_box()
            assert icon and icon["width"] >= 10 and icon["height"] >= 10, button
        page.goto(url + "setup")
        page.wait_for_selector("body.is-admin")
        assert page.is_visible("#no-camera")
        assert not page.is_visible("#setup-legend")  # the camera's verdict colours: no camera here
        assert not errors, errors
