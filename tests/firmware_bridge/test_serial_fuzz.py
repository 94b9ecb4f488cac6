"""Property-based fuzz of the frame parser (hypothesis): random bytes, and streams of valid
frames mutated by flipped bits, dropped, inserted and duplicated bytes, truncation and
spliced garbage, fed in random chunks.

Properties: ``FrameParser.feed``/``expire`` never raise; every frame returned carries a
good CRC and is exactly the bytes it claims; ``decode`` returns a message that re-encodes
to those bytes, or raises ``MessageError`` — nothing else; the buffer stays bounded; clean
streams come back whole; a frame with up to three flipped bits is never accepted.

Each hypothesis example feeds its own input plus ``VARIANTS`` inputs derived from it by a
seeded mutator, so the default run covers well over 10^5 inputs in a few seconds
(docs/protocol.md, "Fuzzing"). ``TABLEREF_FUZZ_EXAMPLES=N`` sets the examples per test
(default 400) for a longer run.
"""

from __future__ import annotations

import os
import random
from binascii import crc_hqx

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from firmware_bridge.protocol import (
    MAX_FRAME,
    SYNC,
    Ack,
    AckStatus,
    Capability,
    Change,
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
)

EXAMPLES = int(os.environ.get("TABLEREF_FUZZ_EXAMPLES", "400"))
VARIANTS = 85
FUZZ = settings(max_examples=EXAMPLES, deadline=None, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
COUNTED = {"inputs": 0}

readings = st.sampled_from(list(Reading))
channel_counts = st.integers(1, 80)
messages = st.one_of(
    st.builds(Hello, st.text("abcdefghijklmnopqrstuvwxyz-0123456789", max_size=16),
              st.tuples(st.integers(0, 255), st.integers(0, 255), st.integers(0, 255)),
              st.lists(st.sampled_from([Capability.OCCUPANCY, Capability.POLARITY, Capability.NONE]),
                       min_size=1, max_size=100).map(tuple)),
    st.builds(FullScan, st.lists(readings, min_size=1, max_size=160).map(tuple)),
    st.builds(Change, st.lists(st.tuples(st.integers(0, 511), readings), min_size=1, max_size=30,
                               unique_by=lambda cr: cr[0]).map(tuple)),
    st.builds(Heartbeat, st.integers(0, 2**32 - 1)),
    st.builds(Ack, st.integers(0, 255), st.sampled_from(list(AckStatus))),
    st.just(RequestHello()),
    st.just(RequestScan()),
    st.builds(SetLeds, st.lists(st.sampled_from(list(Led)), min_size=1, max_size=100).map(tuple)),
)
streams = st.lists(st.tuples(st.integers(0, 255), messages), min_size=1, max_size=6)


def check(data: bytes, rng: random.Random) -> list:
    """Feed ``data`` in random chunks; check every property that holds for any input."""
    COUNTED["inputs"] += 1
    parser = FrameParser()
    frames = []
    n = rng.choice((2, 5, 16, 64, 4096))
    for i in range(0, len(data), n):
        frames += parser.feed(data[i:i + n])
        assert parser.pending < MAX_FRAME
    frames += parser.expire()
    for f in frames:
        raw = f.raw
        assert raw[0] == SYNC and raw[1] == len(raw) >= 6
        assert crc_hqx(raw[1:-2], 0xFFFF) == int.from_bytes(raw[-2:], "big"), "a frame with a bad CRC was accepted"
        assert (f.seq, f.type, f.payload) == (raw[2], raw[3], raw[4:-2])
        try:
            message = decode(f)
        except MessageError:
            continue
        assert encode(f.seq, message) == raw
    assert parser.stats.frames == len(frames)
    return frames


def mutate(data: bytes, rng: random.Random) -> bytes:
    out = bytearray(data)
    for _ in range(rng.randint(1, 6)):
        op = rng.randrange(7)
        at = rng.randrange(len(out) + 1)
        if op == 0 and out:  # flip a bit
            at = min(at, len(out) - 1)
            out[at] ^= 1 << rng.randrange(8)
        elif op == 1 and out:  # drop bytes
            del out[at:at + rng.randint(1, 4)]
        elif op == 2:  # insert random bytes
            out[at:at] = rng.randbytes(rng.randint(1, 8))
        elif op == 3:  # insert a sync marker (the worst garbage)
            out[at:at] = bytes([SYNC, rng.randrange(256)])
        elif op == 4 and out:  # duplicate a stretch
            out[at:at] = out[at:at + rng.randint(1, 16)]
        elif op == 5:  # truncate
            del out[at:]
        else:  # splice a long garbage burst
            out[at:at] = rng.randbytes(rng.randint(16, 200))
    return bytes(out)


@FUZZ
@given(st.binary(max_size=600), st.integers(0, 2**32))
def test_random_bytes(data, seed):
    rng = random.Random(seed)
    check(data, rng)
    for _ in range(VARIANTS):
        check(rng.randbytes(rng.randint(0, 400)) if rng.random() < 0.5 else mutate(data, rng), rng)


@FUZZ
@given(streams, st.integers(0, 2**32))
def test_mutated_frame_streams(stream, seed):
    rng = random.Random(seed)
    clean = b"".join(encode(seq, m) for seq, m in stream)
    # Unharmed (with garbage that holds no sync byte between frames): everything, in order.
    noisy = b"".join(bytes(b for b in rng.randbytes(rng.randint(0, 5)) if b != SYNC) + encode(seq, m)
                     for seq, m in stream)
    assert [(f.seq, decode(f)) for f in check(noisy, rng)] == list(stream)
    for _ in range(VARIANTS):
        check(mutate(clean, rng), rng)


@FUZZ
@given(messages, st.integers(0, 255), st.integers(0, 2**32))
def test_up_to_three_flipped_bits_are_always_caught(message, seq, seed):
    rng = random.Random(seed)
    raw = encode(seq, message)
    for _ in range(VARIANTS):
        damaged = bytearray(raw)
        for bit in rng.sample(range(8, 8 * len(raw)), rng.randint(1, 3)):  # any bit after the sync
            damaged[bit // 8] ^= 1 << (bit % 8)
        damaged = bytes(damaged)
        assert damaged not in {f.raw for f in check(damaged, rng)}


def test_the_fuzz_covered_enough_inputs():
    """Runs after the three above (file order): they fed at least 10^5 inputs in all."""
    if EXAMPLES >= 400:
        assert COUNTED["inputs"] >= 100_000, COUNTED
