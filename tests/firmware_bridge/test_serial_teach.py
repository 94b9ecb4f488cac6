"""Teaching on a serial sensor board (issue 31, item 1): the service (tableref.service.SerialFeed
lights the board's LEDs from the decisions) referees Gygès on the reference firmware behind a
pty. A ring lifted lights, steady, exactly the spaces its legal moves end on (SET_LEDS, read back
from the firmware's own LED states); put back, the LEDs go dark. Every wait is on a condition
with a deadline, never a fixed sleep."""

from __future__ import annotations


from decisions import Lifted, Mark, Partial
from firmware_bridge.wiring import Wiring
from rules import View, get_game
from tableref.board_leds import BoardLeds, leds_for
from serial_game import gyges_service_on_firmware, lit_spaces, wait_until
from tableref.serve import Service

WIRING = Wiring.builtin("gyges")
OCC = WIRING.fidelity
GYGES = get_game("gyges")
DEADLINE = 20.0


def wait_for(what, condition, timeout=DEADLINE):
    return wait_until(what, condition, timeout)


def lit(sim) -> dict[str, str]:
    return lit_spaces(sim, WIRING)


def test_a_lifted_ring_lights_its_destinations_steady_and_putting_it_back_darkens_them(tmp_path):
    start = GYGES.default_setup()
    with gyges_service_on_firmware(tmp_path, DEADLINE, teach=True) as (sim, feed, service, decisions):
        lifted_view = View({s: t for s, t in start.view(OCC).items() if s != "c1"})
        sim.set_view(lifted_view)
        shown = wait_for("where the ring may go", lambda: next(
            (d for d in decisions if isinstance(d, Lifted)), None))
        ends = {m.end for m in start.legal_moves() if m.start == "c1"}
        assert set(shown.destinations) == ends
        want = {s: "ON" for s in ends if s in WIRING.channels}
        assert want
        wait_for(f"the LEDs to show {want}", lambda: lit(sim) == want)
        sim.set_view(start.view(OCC))  # put back
        wait_for("the LEDs dark", lambda: lit(sim) == {})
        assert service.referee.ply == 0


def test_teaching_off_at_a_club_by_default_leaves_the_leds_to_the_board_status(tmp_path):
    assert Service(tmp_path / "j", tmp_path / "a", hub=object()).teach is False
    assert Service(tmp_path / "j", tmp_path / "a").teach is True
    assert Service(tmp_path / "j", tmp_path / "a", hub=object(), teach=True).teach is True


def test_leds_for_a_lifted_piece():
    lifted = Lifted(1, 0, "c1", "3", None, "south", ("c4", "d2"), (Mark("d2", "bounce"),), ("c1-c4", "c1-d2/a3"))
    assert {s: v.name for s, v in leds_for(lifted).items()} == {"c4": "ON", "d2": "ON"}
    stuck = Lifted(1, 0, "c6", "3", None, "south", ())
    assert leds_for(stuck) is None  # as the board status said (the lifted space blinks if illegal)
    follow = BoardLeds()
    follow.show(Partial(1, 0, ("c1-c4",), ()))
    assert {s: v.name for s, v in follow.show(lifted).items()} == {"c4": "ON", "d2": "ON"}
