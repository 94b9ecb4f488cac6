"""SerialBoard (the link) against a board played by hand on the other end of a pty, and on
pyserial's loop:// — handshake, trust and resync, LEDs, silence, wrong board, bounded queue."""

from __future__ import annotations

import os
import time
import termios
import tty

import pytest
import serial
import serial.urlhandler.protocol_loop

from firmware_bridge.protocol import (
    Ack,
    Capability,
    Change,
    FrameParser,
    FullScan,
    Heartbeat,
    Hello,
    Led,
    Reading,
    RequestHello,
    RequestScan,
    SetLeds,
    decode,
    encode,
)
from firmware_bridge.serial_board import CONNECTED, RESYNCING, SILENT, WRONG_BOARD, SerialBoard
from firmware_bridge.wiring import Wiring
from rules import View

WIRING = Wiring.builtin("gyges")
CH = WIRING.channels
EMPTY = (Reading.EMPTY,) * WIRING.channel_count


class HandBoard:
    """The board end of a pty, played by the test."""

    def __init__(self):
        self.master, self.slave = os.openpty()
        tty.setraw(self.slave)
        self.path = os.ttyname(self.slave)
        self.parser = FrameParser()
        self.seq = 0
        self.got = []

    def send(self, message, seq=None):
        os.write(self.master, encode(self.seq if seq is None else seq, message))
        self.seq = (self.seq if seq is None else seq) + 1 & 0xFF

    def wait_for(self, kind, timeout=2.0):
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            for i, m in enumerate(self.got):
                if isinstance(m, kind):
                    del self.got[: i + 1]
                    return m
            os.set_blocking(self.master, False)
            try:
                data = os.read(self.master, 4096)
            except BlockingIOError:
                time.sleep(0.005)
                continue
            self.got += [decode(f) for f in self.parser.feed(data)]
        raise AssertionError(f"the link never sent {kind.__name__}")

    def close(self):
        os.close(self.master)
        os.close(self.slave)


def readings(**spaces):
    r = list(EMPTY)
    for space, reading in spaces.items():
        r[CH[space]] = reading
    return tuple(r)


def next_complete(board, timeout=2.0, want=None):
    end = time.monotonic() + timeout
    for obs in board.observations():
        if not obs.unreadable and (want is None or obs.view == want):
            return obs
        if time.monotonic() > end:
            raise AssertionError("no complete observation")


def wait_status(link, state, timeout=2.0):
    end = time.monotonic() + timeout
    while link.status.state != state:
        assert time.monotonic() < end, f"status stayed {link.status.state}, never {state}"
        time.sleep(0.005)


@pytest.fixture
def hand():
    h = HandBoard()
    yield h
    h.close()


@pytest.fixture
def link(hand):
    statuses = []
    board = SerialBoard(hand.path, WIRING, tick=0.01, silence=0.5)
    board.subscribe_status(statuses.append)
    board.statuses = statuses
    with board:
        yield board


def handshake(hand, link, scan=EMPTY):
    hand.wait_for(RequestHello)
    hand.send(Hello("hand", (0, 1, 0), (Capability.OCCUPANCY,) * WIRING.channel_count))
    ack = hand.wait_for(Ack)
    hand.wait_for(RequestScan)
    hand.send(FullScan(scan))
    return ack


def test_handshake_then_changes_become_views(hand, link):
    ack = handshake(hand, link, readings(a1=Reading.PRESENT))
    assert ack.acked_seq == 0
    assert next_complete(link).view == View({"a1": "occupied"})
    assert link.status.state == CONNECTED
    hand.send(Change(((CH["a1"], Reading.EMPTY), (CH["b2"], Reading.PRESENT))))
    obs = next_complete(link, want=View({"b2": "occupied"}))
    assert obs.source == "serial" and obs.fidelity.value == "occupancy"
    assert [s.state for s in link.statuses][:3] == ["connecting", "syncing", "connected"]


def test_nothing_is_believed_before_the_first_full_scan(hand, link):
    hand.wait_for(RequestHello)
    obs = next(iter(link.observations()))
    assert obs.unreadable == WIRING.space_ids and obs.view == View()
    hand.send(Hello("hand", (0, 1, 0), (Capability.OCCUPANCY,) * WIRING.channel_count))
    hand.send(Change(((0, Reading.PRESENT),)))  # a change before any scan is meaningless
    hand.wait_for(RequestScan)
    time.sleep(0.05)
    assert link.stats.changes == 0


def test_sequence_gap_drops_trust_until_a_full_scan(hand, link):
    handshake(hand, link)
    next_complete(link)
    hand.seq += 1  # a frame lost on the way
    hand.send(Change(((CH["c3"], Reading.PRESENT),)))
    hand.wait_for(RequestScan)
    assert link.stats.seq_gaps == 1 and link.stats.changes == 0
    assert RESYNCING in [s.state for s in link.statuses]
    hand.send(FullScan(readings(c3=Reading.PRESENT)))
    assert next_complete(link, want=View({"c3": "occupied"}))


def test_crc_error_asks_for_a_full_scan_and_the_damaged_change_is_never_applied(hand, link):
    handshake(hand, link)
    next_complete(link)
    bad = bytearray(encode(hand.seq, Change(((CH["d4"], Reading.PRESENT),))))
    bad[6] ^= 0x10  # now it would name another channel
    os.write(hand.master, bytes(bad))
    hand.wait_for(RequestScan)
    assert link.stats.crc_errors == 1 and link.stats.changes == 0
    for obs in link.observations():
        if not obs.unreadable:
            assert obs.view == View()  # still the last trusted view, never the damaged one
        if link.stats.resyncs and obs.unreadable:
            break


def test_wrong_board_is_refused(hand, link):
    hand.wait_for(RequestHello)
    hand.send(Hello("other", (2, 0, 0), (Capability.OCCUPANCY,) * 12))
    hand.send(FullScan((Reading.PRESENT,) * 12))
    time.sleep(0.1)
    assert link.status.state == WRONG_BOARD and "12 channels" in link.status.detail
    assert link.stats.full_scans == 0


def test_led_requests_go_out_by_channel(hand, link):
    handshake(hand, link)
    link.set_leds({"a1": Led.ON, "f6": Led.BLINK})
    leds = hand.wait_for(SetLeds)
    assert leds.leds[CH["a1"]] is Led.ON and leds.leds[CH["f6"]] is Led.BLINK
    assert sum(1 for v in leds.leds if v) == 2
    with pytest.raises(ValueError, match="'z9' is not a wired space"):
        link.set_leds({"z9": Led.ON})


def test_a_silent_board_is_reported_and_asked_again(hand, link):
    handshake(hand, link)
    next_complete(link)
    wait_status(link, SILENT)
    hand.wait_for(RequestHello)
    hand.send(Heartbeat(1))
    hand.wait_for(RequestScan)
    hand.send(FullScan(EMPTY))
    wait_status(link, CONNECTED)
    assert [s.state for s in link.statuses][-3:] == [SILENT, RESYNCING, CONNECTED]


def test_already_open_loopback_object_and_echoed_commands():
    port = serial.serial_for_url("loop://", timeout=0.01)
    board = SerialBoard(port, WIRING, tick=0.01)
    with board:
        port.write(encode(0, Hello("loop", (1, 0, 0), (Capability.OCCUPANCY,) * WIRING.channel_count))
                   + encode(1, FullScan(readings(S=Reading.PRESENT))))
        assert next_complete(board).view == View({"S": "occupied"})
        assert board.stats.echoed >= 1  # its own requests came back on the loop
    board.close()  # twice is fine
    assert board.status.state == "closed"
    assert list(board.observations()) == []


def test_queue_is_bounded_when_nobody_reads():
    port = serial.serial_for_url("loop://", timeout=0.01)
    board = SerialBoard(port, WIRING, tick=0.001, queue_size=8)
    with board:
        time.sleep(0.2)
    assert board.stats.dropped_observations > 0
    assert board._queue.qsize() <= 8


def test_missing_port_is_disconnected_and_retried(tmp_path):
    statuses = []
    board = SerialBoard(str(tmp_path / "nothing"), WIRING, tick=0.01, backoff=(0.01, 0.02))
    board.subscribe_status(statuses.append)
    with board:
        obs = next(iter(board.observations()))
        time.sleep(0.1)
    assert obs.unreadable == WIRING.space_ids
    assert statuses[1].state == "disconnected" and "nothing" in statuses[1].detail


def test_polarity_board_gives_kind_views():
    data = WIRING.to_dict()
    data.update(reads="polarity", tokens={"north": "1", "south": "3"})
    wiring = Wiring.from_dict(data)
    port = serial.serial_for_url("loop://", timeout=0.01)
    with SerialBoard(port, wiring, tick=0.01) as board:
        port.write(encode(0, Hello("hall", (1, 0, 0), (Capability.POLARITY,) * WIRING.channel_count))
                   + encode(1, FullScan(readings(a1=Reading.NORTH, b1=Reading.SOUTH))))
        obs = next_complete(board)
    assert obs.view == View({"a1": "1", "b1": "3"}) and obs.fidelity.value == "kind"


class _VanishingLoop(serial.urlhandler.protocol_loop.Serial):
    """pyserial's loop:// port whose next read fails once as a tty that vanished does on
    POSIX (``termios.error``, not an OSError), or with ``fault`` (a fault of the link's own)."""

    def __init__(self, fault):
        super().__init__("loop://", timeout=0.01)
        self.fault = None
        self._next_fault = fault

    def arm(self):
        self.fault, self._next_fault = self._next_fault, None

    def read(self, size=1):
        if self.fault is not None:
            fault, self.fault = self.fault, None
            raise fault
        return super().read(size)


@pytest.mark.parametrize("fault", [termios.error(5, "Input/output error"), RuntimeError("a bug in the link")],
                         ids=["termios", "link-fault"])
def test_a_port_error_outside_oserror_reopens_the_link_instead_of_killing_it(fault):
    port = _VanishingLoop(fault)
    statuses = []
    board = SerialBoard(port, WIRING, tick=0.01, backoff=(0.01, 0.02))
    board.subscribe_status(statuses.append)
    hello = encode(0, Hello("loop", (1, 0, 0), (Capability.OCCUPANCY,) * WIRING.channel_count))
    with board:
        port.write(hello + encode(1, FullScan(readings(S=Reading.PRESENT))))
        assert next_complete(board).view == View({"S": "occupied"})
        port.arm()
        end = time.monotonic() + 2.0
        while not any(s.state == "disconnected" for s in statuses):
            assert time.monotonic() < end, f"never disconnected: {[s.state for s in statuses]}"
            time.sleep(0.002)
        lost = next(s for s in statuses if s.state == "disconnected")
        assert str(fault) in lost.detail
        # The link opened the port again (its thread alive): the board answers as after any reconnect.
        while board.stats.connects < 2:
            assert time.monotonic() < end and board._thread.is_alive(), "the link never reopened the port"
            time.sleep(0.002)
        port.write(hello + encode(1, FullScan(readings(S=Reading.PRESENT, a1=Reading.PRESENT))))
        assert next_complete(board, want=View({"S": "occupied", "a1": "occupied"})).view["a1"] == ("occupied",)
        assert board.stats.disconnects == 1 and board.stats.connects == 2 and board._thread.is_alive()
