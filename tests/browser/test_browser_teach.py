"""Teaching at the table end to end (issue 31, items 1 and 4): ``tableref serve`` as a real
process (the simulated board), Debian's chromium on its page. A Gygès ring picked up on the
simulated board (the page's hand: the lift) lights exactly the spaces its legal moves end on on
the referee's board, and its bounces; put back, the lights go. The same for a DRIFT piece (its
attacks marked). "Show me": a piece tapped on the referee's board lists its moves; the admin's
toggle turns it all off. At 360 px nothing scrolls sideways. Screenshots: tests/artifacts/
teach-gyges-desktop.png, teach-drift-360.png."""

from __future__ import annotations

from rules import Fidelity, get_game
from rules.teach import piece_moves
from browserhelp import choose_pin, open_page
from opponenthelp import live, serving

KIND = Fidelity.KIND

# The centres of the referee's board's destination discs and pass rings, as drawn.
CENTRES = """(sel) => [...document.querySelectorAll(sel)].map((c) => [+c.getAttribute('cx'), +c.getAttribute('cy')])"""
FITS = "() => [document.documentElement.scrollWidth, innerWidth]"


def board_centres(page, game):
    spaces = page.evaluate(f"async () => (await fetch('/api/board/{game}')).json()")["spaces"]
    return {(round(s["x"], 3), round(s["y"], 3)): s["id"] for s in spaces}


def lit(page, game, cls):
    centres = board_centres(page, game)
    return sorted(centres[(round(x, 3), round(y, 3))] for x, y in page.evaluate(CENTRES, f"#board circle.{cls}"))


def wait_lit(page, n):
    page.wait_for_function("n => document.querySelectorAll('#board .b-dest').length === n", arg=n)


def pick_up(page, space, token=None):
    page.click(f'#simboard [data-space="{space}"]')
    if token is not None and page.locator("#picker .piece-btn").count():
        page.click(f'#picker .piece-btn[data-token="{token}"]')
    page.wait_for_function("() => document.querySelectorAll('#hand .piece-btn').length === 1")


def put_back(page, space):
    page.click(f'#simboard [data-space="{space}"]')
    page.wait_for_function("() => document.querySelectorAll('#hand .piece-btn').length === 0")


def test_lifting_a_gyges_ring_then_a_drift_piece_lights_where_it_may_go(browser, tmp_path, artifacts):
    with serving(tmp_path) as url:
        page, errors = open_page(browser, url)
        choose_pin(page)
        page.wait_for_selector("#teach-on")
        start = get_game("gyges").default_setup()

        # A Gygès ring: exactly the ends of its legal moves, its bounces marked.
        want = piece_moves(start, "c1", KIND)
        assert want.destinations
        pick_up(page, "c1")
        wait_lit(page, len(want.destinations))
        assert lit(page, "gyges", "b-dest") == list(want.destinations)
        assert lit(page, "gyges", "b-pass") == sorted(s for s, _ in want.marks)
        assert page.get_attribute("#teach .headline", "data-lifted") == "c1"
        assert page.inner_text("#teach .headline") == f"Lifted from c1 — where it may go: {len(want.destinations)}"
        snap = live(page)
        assert snap["teach"]["lifted"]["destinations"] == list(want.destinations)
        page.screenshot(path=str(artifacts / "teach-gyges-desktop.png"))
        put_back(page, "c1")
        wait_lit(page, 0)
        assert live(page)["teach"]["lifted"] is None

        # Show me: tap a1 on the referee's board, its moves listed in words.
        a1 = piece_moves(start, "a1", KIND)
        page.click('#board [data-space="a1"]')
        page.wait_for_selector("#teach .teach-chosen[data-space='a1']")
        wait_lit(page, len(a1.destinations))
        assert page.locator("#teach .teach-moves li[data-move]").count() == len(a1.moves)
        page.click("#teach button:has-text('Clear')")
        wait_lit(page, 0)

        # A DRIFT piece, on a phone: the new game set up on the simulated board, red's III lifted.
        page.set_viewport_size({"width": 360, "height": 740})
        page.evaluate("""async () => { await window.TR.post('/api/new-game', {game: 'drift', setup: 'default'}); }""")
        page.wait_for_function("() => document.querySelector('#game-title').textContent.startsWith('DRIFT')")
        drift = get_game("drift").default_setup()
        home = "O0"
        want = piece_moves(drift, home, KIND, ["red-III"])
        assert want.destinations
        pick_up(page, home, "red-III")
        wait_lit(page, len(want.destinations))
        assert lit(page, "drift", "b-dest") == list(want.destinations)
        width, screen = page.evaluate(FITS)
        assert width <= screen, f"the page is {width} px wide on a {screen} px screen"
        page.locator("#board").scroll_into_view_if_needed()
        page.screenshot(path=str(artifacts / "teach-drift-360.png"))
        put_back(page, home)
        wait_lit(page, 0)

        # Blue's piece: whose turn it is.
        pick_up(page, "O8", "blue-III")
        page.wait_for_selector("#teach .headline:has-text('Not your piece: Red to move')")
        put_back(page, "O8")
        page.wait_for_function("() => !document.querySelector('#teach [data-lifted]')")

        # The admin turns teaching off: a piece lifted lights nothing.
        page.click("#teach-on")
        page.wait_for_function("async () => !(await (await fetch('/api/state')).json()).teach.on")
        pick_up(page, home, "red-III")
        page.wait_for_function("async () => (await (await fetch('/api/state')).json()).board_status.kind === 'partial'")
        assert page.locator("#board .b-dest").count() == 0
        put_back(page, home)
        assert not errors, errors
