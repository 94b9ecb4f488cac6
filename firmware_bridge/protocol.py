"""The serial sensor board's wire format: frames and messages, pure (no I/O, no threads).

In the style of Klipper's msgproto: small binary frames with a resync marker, a length, a
sequence number and a CRC, so a reader that starts mid-stream, or loses or garbles bytes,
finds the next good frame and never accepts a damaged one. Byte by byte in
``docs/protocol.md``::

    0x7E | LEN | SEQ | TYPE | PAYLOAD (LEN - 6 bytes) | CRC16 (big-endian)

``LEN`` counts the whole frame (6..255 bytes). The CRC is CRC-16/CCITT-FALSE
(``binascii.crc_hqx(frame[1:LEN-2], 0xFFFF)``) over LEN, SEQ, TYPE and the payload.

:class:`FrameParser` turns any byte stream into :class:`Frame` values and never raises;
:func:`decode` turns a frame into a typed message, raising only :class:`MessageError`.
"""

from __future__ import annotations

import enum
from binascii import crc_hqx
from dataclasses import dataclass, field

SYNC = 0x7E
HEADER_LEN = 4  # sync, len, seq, type
CRC_LEN = 2
MIN_FRAME = HEADER_LEN + CRC_LEN
MAX_FRAME = 255
MAX_PAYLOAD = MAX_FRAME - MIN_FRAME
CRC_INIT = 0xFFFF
PROTOCOL_VERSION = 1
MAX_CHANNELS = 512  # 2 bits a channel: a full scan of 512 channels is 128 + 2 payload bytes
MAX_CHANGES = 80  # 3 bytes a change: 1 + 80 * 3 = 241 payload bytes
MAX_NAME = 16


class MessageType(enum.IntEnum):
    # board → Pi
    HELLO = 0x01
    FULL_SCAN = 0x02
    CHANGE = 0x03
    HEARTBEAT = 0x04
    ACK = 0x05  # both ways: the board acks commands, the Pi acks the board's hello
    # Pi → board
    REQUEST_HELLO = 0x81
    REQUEST_SCAN = 0x82
    SET_LEDS = 0x83


class Capability(enum.IntEnum):
    """What a channel can report (2 bits in the hello)."""

    NONE = 0  # not fitted
    OCCUPANCY = 1  # a reed switch or unipolar Hall sensor: something is here
    POLARITY = 2  # a pair of Hall sensors: which pole of the piece's magnet faces down


class Reading(enum.IntEnum):
    """What a channel reads (2 bits)."""

    EMPTY = 0
    PRESENT = 1  # occupied; for a polarity channel: occupied, pole not told (both sensors on)
    NORTH = 2
    SOUTH = 3


class Led(enum.IntEnum):
    OFF = 0
    ON = 1  # steady: a piece is to go here
    BLINK = 2  # blinking: something here is to be put right
    # 3 is reserved: never sent; the firmware shows it as OFF


_READINGS = tuple(Reading)
_CAPABILITIES = tuple(Capability) + (None,)  # 3 is refused before it is looked up
_LEDS = tuple(Led)


class AckStatus(enum.IntEnum):
    OK = 0
    REFUSED = 1  # well-framed but not understood (wrong length, unknown type)


class MessageError(ValueError):
    """A frame with a good CRC whose payload does not make the message its type says."""


# -- frames ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Frame:
    seq: int
    type: int
    payload: bytes
    raw: bytes  # the whole frame as received, sync to CRC


def crc16(data: bytes) -> int:
    return crc_hqx(data, CRC_INIT)


def encode_frame(seq: int, type_: int, payload: bytes = b"") -> bytes:
    if not 0 <= seq <= 255:
        raise ValueError(f"sequence number must be 0..255, got {seq}")
    if not 0 <= type_ <= 255:
        raise ValueError(f"message type must be 0..255, got {type_}")
    if len(payload) > MAX_PAYLOAD:
        raise ValueError(f"payload of {len(payload)} bytes exceeds {MAX_PAYLOAD}")
    body = bytes((len(payload) + MIN_FRAME, seq, type_)) + bytes(payload)
    return bytes((SYNC,)) + body + crc16(body).to_bytes(2, "big")


@dataclass
class ParserStats:
    frames: int = 0
    garbage_bytes: int = 0  # bytes skipped looking for a sync marker
    bad_length: int = 0  # a sync marker followed by an impossible length
    crc_errors: int = 0  # a complete candidate frame whose CRC did not match
    truncated: int = 0  # a partial frame given up on when the line went quiet

    @property
    def errors(self) -> int:
        return self.bad_length + self.crc_errors + self.truncated


class FrameParser:
    """Incremental frame finder. ``feed`` takes any bytes and returns the complete good
    frames found, in order; it never raises. The buffer holds at most one partial frame
    (< 255 bytes): garbage is dropped as soon as it is seen.

    On a bad candidate only its sync byte is dropped and the search resumes from the next
    byte, because a real frame may start inside a damaged one (a dropped byte shifts it).
    """

    def __init__(self) -> None:
        self._buf = bytearray()
        self.stats = ParserStats()

    @property
    def pending(self) -> int:
        """Bytes held waiting for the rest of a frame."""
        return len(self._buf)

    def reset(self) -> None:
        self._buf.clear()

    def feed(self, data: bytes) -> list[Frame]:
        self._buf += data
        return self._scan()

    def expire(self) -> list[Frame]:
        """The line went quiet with a partial frame held: it is truncated. Count it, skip
        its sync byte, and look again at what followed it (a whole short frame may have been
        stuck behind the damaged one's length)."""
        if not self._buf:
            return []
        self.stats.truncated += 1
        del self._buf[0]
        return self._scan()

    def _scan(self) -> list[Frame]:
        buf, out, stats = self._buf, [], self.stats
        while buf:
            start = buf.find(SYNC)
            if start < 0:
                stats.garbage_bytes += len(buf)
                buf.clear()
                break
            if start:
                stats.garbage_bytes += start
                del buf[:start]
            if len(buf) < 2:
                break
            length = buf[1]
            if length < MIN_FRAME:
                stats.bad_length += 1
                del buf[0]
                continue
            if len(buf) < length:
                break
            if crc16(bytes(buf[1:length - CRC_LEN])) != int.from_bytes(buf[length - CRC_LEN:length], "big"):
                stats.crc_errors += 1
                del buf[0]
                continue
            raw = bytes(buf[:length])
            del buf[:length]
            stats.frames += 1
            out.append(Frame(raw[2], raw[3], raw[HEADER_LEN:length - CRC_LEN], raw))
        return out


# -- messages ----------------------------------------------------------------------------------


_UNPACKED = tuple(tuple((b >> s) & 3 for s in (0, 2, 4, 6)) for b in range(256))


def pack2(values: tuple[int, ...] | list[int]) -> bytes:
    """Pack 2-bit values, four to a byte, first value in the low bits."""
    v = [int(x) & 3 for x in values] + [0, 0, 0]
    return bytes(v[i] | v[i + 1] << 2 | v[i + 2] << 4 | v[i + 3] << 6 for i in range(0, len(values), 4))


def unpack2(data: bytes, count: int) -> tuple[int, ...]:
    out: list[int] = []
    for b in data:
        out.extend(_UNPACKED[b])
    return tuple(out[:count])


def _packed_channels(payload: bytes, what: str) -> tuple[int, ...]:
    """``count u16`` then ``count`` 2-bit values; exactly as many bytes as that needs."""
    if len(payload) < 2:
        raise MessageError(f"{what}: payload of {len(payload)} bytes has no channel count")
    count = int.from_bytes(payload[:2], "big")
    if not 1 <= count <= MAX_CHANNELS:
        raise MessageError(f"{what}: channel count {count} is not 1..{MAX_CHANNELS}")
    need = 2 + (count + 3) // 4
    if len(payload) != need:
        raise MessageError(f"{what}: {count} channels need {need} payload bytes, got {len(payload)}")
    values = unpack2(payload[2:], count)
    if count & 3 and payload[-1] >> ((count & 3) * 2):
        raise MessageError(f"{what}: padding bits after the last channel are not zero")
    return values


@dataclass(frozen=True)
class Hello:
    firmware: str
    version: tuple[int, int, int]
    capabilities: tuple[Capability, ...]
    protocol: int = PROTOCOL_VERSION
    type: int = field(default=MessageType.HELLO, init=False, repr=False)

    def payload(self) -> bytes:
        name = self.firmware.encode("ascii")
        return (bytes((self.protocol, *self.version, len(name))) + name
                + len(self.capabilities).to_bytes(2, "big") + pack2(self.capabilities))


@dataclass(frozen=True)
class FullScan:
    readings: tuple[Reading, ...]
    type: int = field(default=MessageType.FULL_SCAN, init=False, repr=False)

    def payload(self) -> bytes:
        return len(self.readings).to_bytes(2, "big") + pack2(self.readings)


@dataclass(frozen=True)
class Change:
    """Every channel whose debounced reading changed in one scan: applied together."""

    changes: tuple[tuple[int, Reading], ...]
    type: int = field(default=MessageType.CHANGE, init=False, repr=False)

    def payload(self) -> bytes:
        out = bytearray((len(self.changes),))
        for channel, reading in self.changes:
            out += channel.to_bytes(2, "big") + bytes((int(reading),))
        return bytes(out)


@dataclass(frozen=True)
class Heartbeat:
    uptime_ms: int
    type: int = field(default=MessageType.HEARTBEAT, init=False, repr=False)

    def payload(self) -> bytes:
        return (self.uptime_ms & 0xFFFFFFFF).to_bytes(4, "big")


@dataclass(frozen=True)
class Ack:
    acked_seq: int
    status: AckStatus = AckStatus.OK
    type: int = field(default=MessageType.ACK, init=False, repr=False)

    def payload(self) -> bytes:
        return bytes((self.acked_seq, int(self.status)))


@dataclass(frozen=True)
class RequestHello:
    type: int = field(default=MessageType.REQUEST_HELLO, init=False, repr=False)

    def payload(self) -> bytes:
        return b""


@dataclass(frozen=True)
class RequestScan:
    type: int = field(default=MessageType.REQUEST_SCAN, init=False, repr=False)

    def payload(self) -> bytes:
        return b""


@dataclass(frozen=True)
class SetLeds:
    leds: tuple[Led, ...]  # one per channel
    type: int = field(default=MessageType.SET_LEDS, init=False, repr=False)

    def payload(self) -> bytes:
        return len(self.leds).to_bytes(2, "big") + pack2(self.leds)


Message = Hello | FullScan | Change | Heartbeat | Ack | RequestHello | RequestScan | SetLeds


def encode(seq: int, message: Message) -> bytes:
    return encode_frame(seq, int(message.type), message.payload())


def decode(frame: Frame) -> Message:
    """The message a good frame carries; :class:`MessageError` if the payload is not one."""
    p = frame.payload
    try:
        kind = MessageType(frame.type)
    except ValueError:
        raise MessageError(f"unknown message type 0x{frame.type:02x}") from None
    if kind is MessageType.HELLO:
        if len(p) < 5:
            raise MessageError(f"hello: payload of {len(p)} bytes is too short")
        protocol, major, minor, patch, name_len = p[:5]
        if name_len > MAX_NAME or len(p) < 5 + name_len + 2:
            raise MessageError(f"hello: firmware name of {name_len} bytes does not fit the payload")
        raw_name = p[5:5 + name_len]
        if any(b < 0x20 or b > 0x7E for b in raw_name):
            raise MessageError("hello: firmware name is not printable ASCII")
        caps = _packed_channels(p[5 + name_len:], "hello")
        if any(c == 3 for c in caps):
            raise MessageError("hello: capability 3 is reserved")
        return Hello(raw_name.decode("ascii"), (major, minor, patch), tuple(map(_CAPABILITIES.__getitem__, caps)), protocol)
    if kind is MessageType.FULL_SCAN:
        return FullScan(tuple(map(_READINGS.__getitem__, _packed_channels(p, "full scan"))))
    if kind is MessageType.CHANGE:
        if not p or not 1 <= p[0] <= MAX_CHANGES or len(p) != 1 + 3 * p[0]:
            raise MessageError(f"change: payload of {len(p)} bytes is not a count and count*3 bytes")
        changes = []
        for i in range(p[0]):
            channel = int.from_bytes(p[1 + 3 * i:3 + 3 * i], "big")
            reading = p[3 + 3 * i]
            if channel >= MAX_CHANNELS or reading > 3:
                raise MessageError(f"change: channel {channel} reading {reading} out of range")
            changes.append((channel, _READINGS[reading]))
        if len({c for c, _ in changes}) != len(changes):
            raise MessageError("change: a channel is listed twice")
        return Change(tuple(changes))
    if kind is MessageType.HEARTBEAT:
        if len(p) != 4:
            raise MessageError(f"heartbeat: payload of {len(p)} bytes, expected 4")
        return Heartbeat(int.from_bytes(p, "big"))
    if kind is MessageType.ACK:
        if len(p) != 2 or p[1] > 1:
            raise MessageError(f"ack: payload {p.hex()} is not a sequence number and a status 0/1")
        return Ack(p[0], AckStatus(p[1]))
    if kind is MessageType.SET_LEDS:
        values = _packed_channels(p, "set leds")
        if 3 in values:
            raise MessageError("set leds: LED state 3 is reserved")
        return SetLeds(tuple(map(_LEDS.__getitem__, values)))
    if p:
        raise MessageError(f"{kind.name.lower()}: expected no payload, got {len(p)} bytes")
    return RequestHello() if kind is MessageType.REQUEST_HELLO else RequestScan()
