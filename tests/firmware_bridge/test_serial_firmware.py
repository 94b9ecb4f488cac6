"""The reference firmware (firmware/main.py, the very file flashed to the Pico) under CPython
with the fake ``machine``: its CRC is crc_hqx's, its frames are the protocol's, it debounces
as documented, obeys LED commands and refuses what it does not understand."""

from __future__ import annotations

from binascii import crc_hqx

from hypothesis import given, settings
from hypothesis import strategies as st

from firmware_bridge.protocol import (
    Ack,
    AckStatus,
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
    encode_frame,
)
from firmware_bridge.simulator import SensorMatrix, load_firmware

FW = load_firmware()
MACHINE = __import__("machine")


class Port:
    def __init__(self):
        self.inbox = b""
        self.sent = bytearray()

    def read(self):
        data, self.inbox = self.inbox, b""
        return data

    def write(self, data):
        self.sent += data


def make_board(channels=10, polarity=None, debounce=3):
    matrix = SensorMatrix(3, 7)
    rows = [MACHINE.Pin(i, MACHINE.Pin.OUT, value=1) for i in range(3)]
    cols = [MACHINE.Pin(10 + i, MACHINE.Pin.IN, MACHINE.Pin.PULL_UP) for i in range(7)]
    matrix.attach(rows, cols)
    port = Port()
    board = FW.SensorBoard(rows, cols, port, MACHINE.Pin(30, MACHINE.Pin.OUT), channels=channels,
                           polarity=polarity or {}, scan_ms=5, debounce=debounce)
    return board, matrix, port


def messages(port, parser=None):
    parser = parser or FrameParser()
    out = [decode(f) for f in parser.feed(bytes(port.sent))]
    port.sent.clear()
    return out


@settings(max_examples=200, database=None, deadline=None)
@given(st.binary(max_size=120))
def test_firmware_crc_is_crc_hqx(data):
    assert FW.crc16(data) == crc_hqx(data, 0xFFFF)


@settings(max_examples=100, database=None, deadline=None)
@given(st.integers(0, 255), st.integers(0, 255), st.binary(max_size=60))
def test_firmware_frames_are_protocol_frames(seq, kind, payload):
    assert FW.frame(seq, kind, payload) == encode_frame(seq, kind, payload)


@settings(max_examples=200, database=None, deadline=None)
@given(st.binary(max_size=400))
def test_firmware_parser_finds_what_the_pi_parser_finds(data):
    pi = [(f.seq, f.type, f.payload) for f in FrameParser().feed(data)]
    assert FW.Parser().feed(data) == pi


def test_ticks_diff_survives_the_wrap():
    assert FW.ticks_diff(3, FW.TICKS_PERIOD - 2) == 5
    assert FW.ticks_diff(FW.TICKS_PERIOD - 2, 3) == -5


def test_boot_says_hello_until_acknowledged():
    board, matrix, port = make_board()
    board.poll(0)
    [hello] = messages(port)
    assert hello == Hello("tableref-pico", tuple(FW.VERSION), (Capability.OCCUPANCY,) * 10)
    board.poll(1000)
    assert any(isinstance(m, Hello) for m in messages(port))
    seq = board.hello_seq
    port.inbox = encode(0, Ack(seq))
    board.poll(1001)
    board.poll(2500)
    assert not any(isinstance(m, Hello) for m in messages(port))
    port.inbox = encode(1, RequestHello())
    board.poll(2501)
    assert any(isinstance(m, Hello) for m in messages(port))


def test_a_change_counts_after_it_holds_for_n_scans():
    board, matrix, port = make_board(debounce=3)
    board.poll(0)
    messages(port)
    matrix.set_cell(4, True)
    board.poll(5)
    board.poll(10)
    assert not [m for m in messages(port) if isinstance(m, Change)]  # two scans: not yet
    board.poll(15)
    assert [m for m in messages(port) if isinstance(m, Change)] == [Change(((4, Reading.PRESENT),))]


def test_a_flicker_shorter_than_the_debounce_is_never_reported():
    board, matrix, port = make_board(debounce=3)
    board.poll(0)
    for t in range(5, 200, 5):
        matrix.set_cell(2, (t // 5) % 3 != 0)  # closed two scans, open one, over and over
        board.poll(t)
    assert not [m for m in messages(port) if isinstance(m, Change)]


def test_changes_of_one_scan_travel_in_one_frame_and_full_scan_on_request():
    board, matrix, port = make_board(debounce=1)
    board.poll(0)
    for cell in (0, 3, 9):
        matrix.set_cell(cell, True)
    board.poll(5)
    changes = [m for m in messages(port) if isinstance(m, Change)]
    assert changes == [Change(((0, Reading.PRESENT), (3, Reading.PRESENT), (9, Reading.PRESENT)))]
    port.inbox = encode(5, RequestScan())
    board.poll(6)
    [scan] = [m for m in messages(port) if isinstance(m, FullScan)]
    assert [i for i, r in enumerate(scan.readings) if r] == [0, 3, 9]


def test_periodic_full_scan_and_heartbeat_with_consecutive_sequence_numbers():
    board, matrix, port = make_board()
    parser = FrameParser()
    for t in range(0, 4001, 5):
        board.poll(t)
    frames = parser.feed(bytes(port.sent))
    kinds = [type(decode(f)) for f in frames]
    assert kinds.count(FullScan) == 2 and kinds.count(Heartbeat) == 8
    assert [f.seq for f in frames] == list(range(len(frames)))


def test_polarity_pairs_tell_the_pole():
    board, matrix, port = make_board(channels=3, polarity={1: (1, 2), 2: (3, 4)})
    matrix.set_cell(0, True)
    matrix.set_cell(1, True)  # channel 1: north
    matrix.set_cell(3, True)
    matrix.set_cell(4, True)  # channel 2: both sensors: present, pole unknown
    board.poll(0)
    [hello] = messages(port)
    assert hello.capabilities == (Capability.OCCUPANCY, Capability.POLARITY, Capability.POLARITY)
    assert board.stable == [Reading.PRESENT, Reading.NORTH, Reading.PRESENT]


def test_led_command_lights_the_chain_and_is_acknowledged():
    board, matrix, port = make_board(channels=4)
    board.poll(0)
    messages(port)
    port.inbox = encode(9, SetLeds((Led.ON, Led.OFF, Led.BLINK, Led.OFF)))
    board.poll(1)
    assert Ack(9, AckStatus.OK) in messages(port)
    assert board.leds == [1, 0, 2, 0]
    chain = board.led_pin.sent[-1]
    assert chain[0:3] == bytes(FW.COLOUR_ON) and chain[3:6] == bytes(3)
    board.poll(300)  # the blink phase turns
    assert board.led_pin.sent[-1][6:9] == bytes(FW.COLOUR_BLINK)


def test_unknown_or_malformed_commands_are_refused_garbage_ignored():
    board, matrix, port = make_board()
    board.poll(0)
    messages(port)
    port.inbox = b"\x7e\x00garbage" + encode_frame(4, 0x99) + encode_frame(5, 0x83, b"\x00")
    board.poll(1)
    assert [m for m in messages(port) if isinstance(m, Ack)] == [Ack(4, AckStatus.REFUSED), Ack(5, AckStatus.REFUSED)]
    assert board.parser.errors > 0
