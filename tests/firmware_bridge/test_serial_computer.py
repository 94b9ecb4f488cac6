"""The computer opponent on a serial sensor board (issue 30): the service (the path that lights
a serial board's LEDs from the decisions: tableref.service.SerialFeed) referees a Gygès game on
the reference firmware behind a pty, the computer plays north at level 1. After south's move the
firmware's own LED states show the computer's move — blinking where hands lift a ring, steady
where they put one down; a wrong board blinks what to put right, and once it is right the move
shows again; the move carried out on the simulated board is accepted and the LEDs go dark.
Every wait is on a condition with a deadline, never a fixed sleep."""

from __future__ import annotations


from decisions import Ambiguous, ComputerMove, Confirm, parse_seats
from firmware_bridge.wiring import Wiring
from rules import Fidelity, get_game
from tableref.board_leds import BoardLeds, leds_for, steps_leds
from serial_game import gyges_service_on_firmware, lit_spaces, wait_until

WIRING = Wiring.builtin("gyges")
OCC = WIRING.fidelity
GYGES = get_game("gyges")
DEADLINE = 20.0  # seconds, for each condition: generous for a machine busy with other work


def wait_for(what, condition, timeout=DEADLINE):
    return wait_until(what, condition, timeout)


def lit(sim) -> dict[str, str]:
    return lit_spaces(sim, WIRING)


def named(leds) -> dict[str, str]:
    return {space: led.name for space, led in leds.items()}


def test_the_boards_leds_show_the_computers_move_and_a_person_carries_it_out(tmp_path):
    start = GYGES.default_setup()
    with gyges_service_on_firmware(tmp_path, DEADLINE, seats=parse_seats("north:1")) as (sim, feed, service, decisions):

        after = start.apply_text("a1-a2")  # south's move, made by hand
        sim.set_view(after.view(OCC))
        # Reed switches cannot tell it from a bump (a1-b1/a2): the players confirm it.
        asked = wait_for("the question", lambda: next((d for d in decisions if isinstance(d, Ambiguous)), None))
        [choice] = [c for c in asked.choices if c.text == "a1-a2"]
        service.submit(Confirm(choice.number, choice.text))
        shown = wait_for("the computer's move", lambda: next(
            (d for d in decisions if isinstance(d, ComputerMove)), None))
        assert service.referee.ply == 1 and shown.side == "north" and shown.level == 1
        [step] = shown.steps
        assert step.lift and step.place
        want = named(steps_leds(shown.steps))
        assert set(want.values()) <= {"BLINK", "ON"} and "BLINK" in want.values()
        wait_for(f"the LEDs to show {want}", lambda: lit(sim) == want)
        for space in step.lift:
            assert lit(sim)[space] == "BLINK"  # lift here
        for space in set(step.place) - set(step.lift):
            assert lit(sim)[space] == "ON"  # put a ring down here

        # Another north move, far from the computer's: refused, put right, the move lit again.
        computer = after.apply_text(step.move)
        touched = set(step.lift) | set(step.place)
        other = next(m for m in after.legal_moves()
                     if not set(after.move_spaces(m)) & touched
                     and after.successor(m).view(OCC) != computer.view(OCC))
        wrong = after.successor(other)
        sim.set_view(wrong.view(OCC))
        again = wait_for("the computer's move said again", lambda: next(
            (d for d in decisions if isinstance(d, ComputerMove) and d.repeated), None))
        put_right = {sp: "BLINK" for sp in after.view(OCC).diff(wrong.view(OCC))}
        wait_for(f"the LEDs to show what to put right {put_right}", lambda: lit(sim) == put_right)
        assert again.steps == shown.steps
        sim.set_view(after.view(OCC))
        wait_for(f"the computer's move lit again {want}", lambda: lit(sim) == want)

        sim.set_view(computer.view(OCC))  # a person makes the computer's move
        wait_for("the computer's move accepted", lambda: service.referee.ply == 2)
        wait_for("the LEDs dark", lambda: lit(sim) == {})
        assert service.journal.load(service.referee.record.id).moves == ["a1-a2", step.move]


# -- the LED states, decision by decision --------------------------------------------------------


def test_leds_for_the_computers_move_a_turn_under_way_and_a_hint():
    from decisions import Accepted, Hint, Illegal, Restored, Step
    from rules import SpaceFix

    bump = Step("a6-b6/a3", "North: single ring a6 → b6, bumping the double ring to a3", ("a6", "b6"), ("a3", "b6"))
    then = Step("b6-c6", "", ("b6",), ("c6",))
    move = ComputerMove(1, 1, "north", 1, (bump, then))
    # The bumped ring's square is lifted from before a ring goes down on it: it blinks.
    assert named(leds_for(move)) == {"a6": "BLINK", "b6": "BLINK", "a3": "ON", "c6": "ON"}
    assert named(leds_for(ComputerMove(1, 2, "north", 1, (bump, then), done=1))) == {"b6": "BLINK", "c6": "ON"}
    assert leds_for(ComputerMove(1, 1, "north", 1, (bump,), repeated=True)) is None  # the illegal board's stay
    assert named(leds_for(Hint(1, 1, "south", 3, (bump,)))) == {"a6": "BLINK", "b6": "BLINK", "a3": "ON"}
    follow = BoardLeds()
    assert named(follow.show(move)) == named(leds_for(move))
    assert named(follow.show(Illegal(1, 1, (SpaceFix("d4", (), ("1",)),)))) == {"d4": "BLINK"}
    assert named(follow.show(Restored(1, 1))) == named(leds_for(move))  # put right: the move again
    assert follow.show(Accepted(1, 2, "a6-b6/a3", "", {})) == {}
    assert follow.show(Restored(1, 2)) == {}  # carried out: nothing more to show
    assert Fidelity.OCCUPANCY is OCC
