"""The other table's move on a serial sensor board (issue 34, part 2; docs/remote.md), as the
computer's (tests/firmware_bridge/test_serial_computer.py): the service (tableref.service.SerialFeed)
referees a Gygès game on the reference firmware behind a pty, north played by another table. Its
move arrives as the link hands it over (RemoteMoves, no broker needed here); the firmware's own LED
states then show it — blinking where hands lift a ring, steady where they put one down; a wrong
board blinks what to put right, and once it is right the move shows again; the move carried out on
the simulated board is accepted and the LEDs go dark. Every wait is on a condition with a
deadline, never a fixed sleep."""

from __future__ import annotations

from decisions import Ambiguous, Confirm, Seats
from decisions.remote import RemoteMove, RemoteMoves, RemoteTurn
from decisions.seats import Seat
from firmware_bridge.wiring import Wiring
from rules import get_game
from serial_game import gyges_service_on_firmware, lit_spaces, wait_until
from tableref.board_leds import steps_leds

WIRING = Wiring.builtin("gyges")
OCC = WIRING.fidelity
GYGES = get_game("gyges")
DEADLINE = 20.0


def lit(sim) -> dict[str, str]:
    return lit_spaces(sim, WIRING)


def test_the_boards_leds_show_the_other_tables_move_and_a_person_carries_it_out(tmp_path):
    start = GYGES.default_setup()
    seats = Seats({"north": Seat.remote("table-b", "table-a.K7M4QX")})
    with gyges_service_on_firmware(tmp_path, DEADLINE, seats=seats) as (sim, feed, service, decisions):

        after = start.apply_text("a1-a2")  # south's move, made by hand here
        sim.set_view(after.view(OCC))
        asked = wait_until("the question", lambda: next((d for d in decisions if isinstance(d, Ambiguous)), None),
                           DEADLINE)
        [choice] = [c for c in asked.choices if c.text == "a1-a2"]
        service.submit(Confirm(choice.number, choice.text))
        wait_until("south's move", lambda: service.referee.ply == 1, DEADLINE)

        reply = "a6-b6/a3"  # table-b's move, as its link hands it over
        service.submit(RemoteMoves(service.referee.record.id, (RemoteMove(2, reply),)))
        shown = wait_until("the other table's move", lambda: next(
            (d for d in decisions if isinstance(d, RemoteTurn)), None), DEADLINE)
        want = {s: led.name for s, led in steps_leds(shown.steps).items()}
        assert want == {"a6": "BLINK", "b6": "BLINK", "a3": "ON"}
        wait_until(f"the LEDs to show {want}", lambda: lit(sim) == want, DEADLINE)

        made = after.apply_text(reply)
        touched = {"a6", "b6", "a3"}
        other = next(m for m in after.legal_moves()
                     if not set(after.move_spaces(m)) & touched and after.successor(m).view(OCC) != made.view(OCC))
        wrong = after.successor(other)
        sim.set_view(wrong.view(OCC))  # another move: refused, put right, the move lit again
        wait_until("the other table's move said again", lambda: next(
            (d for d in decisions if isinstance(d, RemoteTurn) and d.repeated), None), DEADLINE)
        put_right = {sp: "BLINK" for sp in after.view(OCC).diff(wrong.view(OCC))}
        wait_until(f"the LEDs to show what to put right {put_right}", lambda: lit(sim) == put_right, DEADLINE)
        sim.set_view(after.view(OCC))
        wait_until(f"the other table's move lit again {want}", lambda: lit(sim) == want, DEADLINE)

        sim.set_view(made.view(OCC))  # a person here makes the other table's move
        wait_until("the move accepted", lambda: service.referee.ply == 2, DEADLINE)
        wait_until("the LEDs dark", lambda: lit(sim) == {}, DEADLINE)
        assert service.journal.load(service.referee.record.id).moves == ["a1-a2", reply]
