"""How the page draws a move to carry out by hand (web/static/board.js, drawTurn), in Debian's
chromium on a real service's page: the arrows from the spaces hands lift from to the spaces they
put down on — a plain move one arrow; a bump one arrow through the space both lifted from and put
down on; two rings that trade places (Gygès f6-e6/f6: the bumped ring put back where its bumper
stood) one double-headed arrow, where every space is both lifted from and put down on."""

from __future__ import annotations

from browserhelp import open_page, running

DRAW = """async (steps) => {
  const board = await TRBoard.load("gyges");
  const svg = document.createElementNS("http://www.w3.org/2000/svg", "svg");
  svg.id = "arrows-probe";
  document.body.appendChild(svg);
  TRBoard.render(svg, board, { turns: [{ steps }] });
  return [...svg.querySelectorAll("line.b-turn-arrow")].map((l) => ({
    start: l.getAttribute("marker-start") !== null, end: l.getAttribute("marker-end") !== null,
    x1: +l.getAttribute("x1"), y1: +l.getAttribute("y1"), x2: +l.getAttribute("x2"), y2: +l.getAttribute("y2") }));
}"""


def arrows(page, lift, place):
    return page.evaluate(DRAW, [{"lift": lift, "place": place, "description": "probe"}])


def test_a_move_a_bump_and_two_rings_trading_places_are_drawn_as_arrows(browser, tmp_path):
    with running(tmp_path, game="gyges", setup="default") as (_svc, url):
        page, errors = open_page(browser, url)
        page.wait_for_function("window.TRBoard !== undefined")

        [plain] = arrows(page, ["a1"], ["a3"])
        assert plain["end"] and not plain["start"]
        assert plain["y2"] != plain["y1"] or plain["x2"] != plain["x1"]

        bump = arrows(page, ["a6", "b6"], ["b6", "a3"])  # a6 onto b6, b6's ring bumped to a3
        assert len(bump) == 2 and all(a["end"] and not a["start"] for a in bump)

        [swap] = arrows(page, ["f6", "e6"], ["e6", "f6"])  # the two rings trade places
        assert swap["start"] and swap["end"], "a swap is one arrow with a head at each end"
        assert not errors, errors
