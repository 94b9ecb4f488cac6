"""The wire format on bytes: every message round-trips, the documented example frame is what
docs/protocol.md says, and damaged or garbage input is counted and skipped."""

from __future__ import annotations

import re
from binascii import crc_hqx
from pathlib import Path

import pytest

from firmware_bridge.protocol import (
    MAX_CHANGES,
    MAX_CHANNELS,
    Ack,
    AckStatus,
    Capability,
    Change,
    Frame,
    FrameParser,
    FullScan,
    Heartbeat,
    Hello,
    Led,
    MessageError,
    Reading,
    RequestHello,
    RequestScan,
    SetLeds,
    decode,
    encode,
    encode_frame,
    pack2,
    unpack2,
)

DOCS = Path(__file__).resolve().parents[2] / "docs" / "protocol.md"

MESSAGES = [
    Hello("tableref-pico", (1, 2, 3), (Capability.OCCUPANCY,) * 37 + (Capability.POLARITY,)),
    FullScan((Reading.EMPTY, Reading.PRESENT, Reading.NORTH, Reading.SOUTH, Reading.EMPTY)),
    FullScan((Reading.PRESENT,) * MAX_CHANNELS),
    Change(((31, Reading.PRESENT),)),
    Change(tuple((c, Reading.EMPTY) for c in range(MAX_CHANGES))),
    Heartbeat(0xFFFFFFFF),
    Ack(200, AckStatus.REFUSED),
    RequestHello(),
    RequestScan(),
    SetLeds((Led.ON, Led.OFF, Led.BLINK)),
]


@pytest.mark.parametrize("message", MESSAGES, ids=lambda m: type(m).__name__)
def test_every_message_round_trips(message):
    raw = encode(7, message)
    [frame] = FrameParser().feed(raw)
    assert (frame.seq, frame.raw) == (7, raw)
    assert decode(frame) == message


def test_frame_layout_byte_by_byte():
    raw = encode(0x07, Change(((31, Reading.PRESENT),)))
    assert raw[0] == 0x7E and raw[1] == len(raw) == 10 and raw[2] == 0x07 and raw[3] == 0x03
    assert raw[4:8] == bytes([1, 0x00, 0x1F, 1])  # one change: channel 31 now present
    assert int.from_bytes(raw[8:], "big") == crc_hqx(raw[1:8], 0xFFFF)


def test_the_worked_example_in_the_docs_is_exact():
    text = DOCS.read_text(encoding="utf-8")
    example = re.search(r"<!-- example-frame -->\s*```\s*\n([0-9A-F ]+)\n", text)
    assert example, "docs/protocol.md lost its worked example"
    raw = bytes.fromhex(example.group(1))
    assert raw == encode(0x07, Change(((31, Reading.PRESENT),)))


def test_pack2_four_to_a_byte_low_bits_first():
    assert pack2([1, 2, 3, 0, 1]) == bytes([0b00111001, 0b01])
    assert unpack2(pack2([3, 0, 2, 1, 1, 2]), 6) == (3, 0, 2, 1, 1, 2)


def test_frames_split_anywhere_are_found_whole():
    stream = b"".join(encode(i, m) for i, m in enumerate(MESSAGES))
    for size in (1, 2, 3, 7, 64):
        parser = FrameParser()
        frames = []
        for i in range(0, len(stream), size):
            frames += parser.feed(stream[i:i + size])
        assert [decode(f) for f in frames] == MESSAGES
        assert parser.stats.errors == parser.stats.garbage_bytes == 0 and parser.pending == 0


def test_garbage_between_frames_is_counted_and_skipped():
    a, b = encode(1, Heartbeat(5)), encode(2, RequestScan())
    parser = FrameParser()
    frames = parser.feed(b"\x00\x01hello" + a + b"\xff" * 300 + b)
    assert [f.raw for f in frames] == [a, b]
    assert parser.stats.garbage_bytes == 7 + 300


def test_a_bad_crc_is_rejected_and_the_next_frame_still_found():
    good = encode(3, Change(((2, Reading.PRESENT),)))
    bad = bytearray(encode(2, Change(((1, Reading.PRESENT),))))
    bad[5] ^= 0x01
    parser = FrameParser()
    assert [f.raw for f in parser.feed(bytes(bad) + good)] == [good]
    assert parser.stats.crc_errors == 1


def test_a_dropped_byte_loses_only_its_own_frame():
    frames = [encode(i, Heartbeat(i)) for i in range(3)]
    damaged = frames[0] + frames[1][:4] + frames[1][5:] + frames[2]
    parser = FrameParser()
    got = parser.feed(damaged)
    got += parser.expire()  # the line goes quiet
    assert [f.raw for f in got] == [frames[0], frames[2]]


def test_truncated_frame_expires_and_what_followed_it_is_recovered():
    long = encode(1, FullScan((Reading.EMPTY,) * 200))
    short = encode(2, Heartbeat(9))
    parser = FrameParser()
    # The long frame lost its tail; the short one is stuck behind its length byte.
    assert parser.feed(long[:20] + short) == []
    assert [f.raw for f in parser.expire()] == [short]
    assert parser.stats.truncated == 1 and parser.pending == 0


def test_impossible_length_is_counted():
    parser = FrameParser()
    assert parser.feed(bytes([0x7E, 0x03]) + encode(0, RequestHello())) != []
    assert parser.stats.bad_length == 1


def test_buffer_stays_bounded_under_any_input():
    parser = FrameParser()
    parser.feed(bytes([0x7E, 0xFF]) + b"\x00" * 100)
    assert parser.pending == 102
    parser.feed(b"\x00" * 100_000)
    assert parser.pending < 255


@pytest.mark.parametrize("type_, payload, fault", [
    (0x02, b"\x00\x05\x00", "5 channels need 4 payload bytes"),
    (0x02, b"\x00\x00", "channel count 0"),
    (0x02, b"\x00\x01\x04", "padding bits"),
    (0x03, b"\x01\x00\x01", "not a count and"),
    (0x03, b"\x02\x00\x01\x01\x00\x01\x00", "listed twice"),
    (0x03, b"\x01\x00\x01\x07", "out of range"),
    (0x04, b"\x00", "expected 4"),
    (0x05, b"\x01\x09", "status 0/1"),
    (0x82, b"\x00", "expected no payload"),
    (0x01, b"\x01\x01\x00\x00\x30" + b"x" * 10, "does not fit"),
    (0x01, b"\x01\x01\x00\x00\x02\x01\x02\x00\x01\x01", "not printable"),
    (0x01, b"\x01\x01\x00\x00\x00\x00\x01\x03", "reserved"),
    (0x42, b"", "unknown message type 0x42"),
])
def test_malformed_payloads_raise_message_error_naming_the_fault(type_, payload, fault):
    [frame] = FrameParser().feed(encode_frame(0, type_, payload))
    with pytest.raises(MessageError, match=fault):
        decode(frame)


def test_encode_refuses_what_cannot_be_framed():
    with pytest.raises(ValueError):
        encode_frame(256, 1)
    with pytest.raises(ValueError):
        encode_frame(0, 1, b"x" * 250)


def test_frame_is_a_value():
    assert Frame(1, 2, b"", b"") == Frame(1, 2, b"", b"")
