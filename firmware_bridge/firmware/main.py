"""tableref sensor board: reference firmware for a Raspberry Pi Pico (MicroPython).

Scans one sensor per space in a diode matrix (reed switches, or pairs of Hall switches that
tell a magnet's pole), debounces each (a change counts once it holds for DEBOUNCE_SCANS
scans), and reports over USB serial in the tableref wire format (docs/protocol.md): a hello
until the Pi acknowledges it, each scan's changes in one frame, a full scan on request and
every FULL_SCAN_MS, a heartbeat every HEARTBEAT_MS. It lights per-space LEDs (a WS2812
chain) as the Pi asks.

Flash: copy this file to the Pico as ``main.py`` (docs/wiring.md). The host runs this very
file under CPython with ``fake_machine.py`` standing in for ``machine`` (firmware_bridge/
simulator.py); only :func:`main` touches the Pico's USB port, so it is the one part the host
does not run. MicroPython has no ``binascii.crc_hqx``: :func:`crc16` computes the same
CRC-16/CCITT-FALSE bit by bit, and the tests check it against ``crc_hqx``.
"""

import machine

NAME = "tableref-pico"
VERSION = (1, 0, 0)
PROTOCOL = 1

ROW_PINS = (2, 3, 4, 5, 6, 7)  # driven low one at a time
COL_PINS = (8, 9, 10, 11, 12, 13, 14)  # inputs with pull-ups: a closed switch reads 0
LED_PIN = 16  # WS2812 data; LED i sits under channel i
MAINTENANCE_PIN = 15  # jumpered to GND at power-up: do not start, leave the REPL to mpremote
CHANNELS = 42  # channel i is matrix cell i = (row i // 7, column i % 7)
# Hall-pair boards: channel -> (north cell, south cell); cells not listed are reed switches.
POLARITY = {}

SCAN_MS = 5
DEBOUNCE_SCANS = 3
HEARTBEAT_MS = 500
FULL_SCAN_MS = 2000
HELLO_MS = 1000
BLINK_MS = 250

SYNC = 0x7E
MIN_FRAME = 6
MAX_CHANGES = 80
T_HELLO, T_FULL_SCAN, T_CHANGE, T_HEARTBEAT, T_ACK = 1, 2, 3, 4, 5
T_REQUEST_HELLO, T_REQUEST_SCAN, T_SET_LEDS = 0x81, 0x82, 0x83
CAP_OCCUPANCY, CAP_POLARITY = 1, 2
EMPTY, PRESENT, NORTH, SOUTH = 0, 1, 2, 3
LED_OFF, LED_ON, LED_BLINK = 0, 1, 2
COLOUR_ON = (40, 0, 0)  # GRB: green, a piece goes here
COLOUR_BLINK = (20, 40, 0)  # GRB: amber, put this right

TICKS_PERIOD = 1 << 30  # MicroPython's ticks_ms() wraps here


def ticks_diff(new, old):
    """``time.ticks_diff`` for ticks that wrap at TICKS_PERIOD (same on host and Pico)."""
    half = TICKS_PERIOD >> 1
    return ((new - old + half) & (TICKS_PERIOD - 1)) - half


def crc16(data, crc=0xFFFF):
    """CRC-16/CCITT-FALSE (poly 0x1021), equal to binascii.crc_hqx(data, 0xFFFF)."""
    for byte in data:
        crc ^= byte << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x1021) if crc & 0x8000 else (crc << 1)
            crc &= 0xFFFF
    return crc


def frame(seq, kind, payload=b""):
    body = bytes((len(payload) + MIN_FRAME, seq, kind)) + payload
    crc = crc16(body)
    return bytes((SYNC,)) + body + bytes((crc >> 8, crc & 0xFF))


def pack2(values):
    out = bytearray((len(values) + 3) // 4)
    for i, v in enumerate(values):
        out[i >> 2] |= (v & 3) << ((i & 3) * 2)
    return bytes(out)


class Parser:
    """Finds good frames in the bytes from the Pi (same rules as the Pi's parser)."""

    def __init__(self):
        self.buf = bytearray()
        self.errors = 0

    def feed(self, data):
        buf = self.buf
        buf.extend(data)
        out = []
        while buf:
            start = 0
            while start < len(buf) and buf[start] != SYNC:
                start += 1
            if start == len(buf):
                self.errors += 1
                self.buf = buf = bytearray()
                break
            if start:
                buf = self.buf = buf[start:]
            if len(buf) < 2:
                break
            n = buf[1]
            if n < MIN_FRAME:
                self.errors += 1
                buf = self.buf = buf[1:]
                continue
            if len(buf) < n:
                break
            if crc16(buf[1:n - 2]) != (buf[n - 2] << 8) | buf[n - 1]:
                self.errors += 1
                buf = self.buf = buf[1:]
                continue
            out.append((buf[2], buf[3], bytes(buf[4:n - 2])))
            buf = self.buf = buf[n:]
        return out


class SensorBoard:
    """The firmware's logic: call :meth:`poll` often with the time in ms (ticks)."""

    def __init__(self, rows, cols, port, led_pin=None, channels=CHANNELS, polarity=None,
                 scan_ms=SCAN_MS, debounce=DEBOUNCE_SCANS, heartbeat_ms=HEARTBEAT_MS,
                 full_scan_ms=FULL_SCAN_MS, hello_ms=HELLO_MS):
        self.rows, self.cols, self.port, self.led_pin = rows, cols, port, led_pin
        self.polarity = POLARITY if polarity is None else polarity
        self.channels = channels
        self.scan_ms, self.debounce = scan_ms, debounce
        self.heartbeat_ms, self.full_scan_ms, self.hello_ms = heartbeat_ms, full_scan_ms, hello_ms
        self.parser = Parser()
        self.seq = 0
        self.stable = None  # debounced readings, one per channel
        self.candidate = [EMPTY] * channels
        self.held = [0] * channels  # scans the candidate has held
        self.leds = [LED_OFF] * channels
        self.blink_on = False
        self.hello_acked = False
        self.hello_seq = -1
        self.scans = 0
        self.started = None
        self.last_scan = self.last_beat = self.last_full = self.last_hello = self.last_blink = 0

    # -- sensing ---------------------------------------------------------------------------

    def read_cells(self):
        """Every matrix cell, row by row: True where a switch is closed."""
        closed = []
        for row in self.rows:
            row.value(0)
            for col in self.cols:
                closed.append(col.value() == 0)
            row.value(1)
        return closed

    def read_channels(self):
        cells = self.read_cells()
        out = []
        for ch in range(self.channels):
            pair = self.polarity.get(ch)
            if pair is None:
                out.append(PRESENT if cells[ch] else EMPTY)
            else:
                north, south = cells[pair[0]], cells[pair[1]]
                out.append(PRESENT if north and south else NORTH if north else SOUTH if south else EMPTY)
        return out

    def scan(self):
        raw = self.read_channels()
        self.scans += 1
        if self.stable is None:  # first scan after boot: nothing to debounce against
            self.stable = raw
            self.candidate = list(raw)
            return []
        changes = []
        for ch in range(self.channels):
            r = raw[ch]
            if r == self.stable[ch]:
                self.held[ch] = 0
            elif r == self.candidate[ch] and self.held[ch]:
                self.held[ch] += 1
            else:
                self.candidate[ch] = r
                self.held[ch] = 1
            if self.held[ch] >= self.debounce:
                self.stable[ch] = r
                self.held[ch] = 0
                changes.append((ch, r))
        return changes

    # -- sending -----------------------------------------------------------------------------

    def send(self, kind, payload=b""):
        self.port.write(frame(self.seq, kind, payload))
        sent = self.seq
        self.seq = (self.seq + 1) & 0xFF
        return sent

    def capabilities(self):
        return [CAP_POLARITY if ch in self.polarity else CAP_OCCUPANCY for ch in range(self.channels)]

    def send_hello(self):
        name = NAME.encode()
        payload = (bytes((PROTOCOL, VERSION[0], VERSION[1], VERSION[2], len(name))) + name
                   + bytes((self.channels >> 8, self.channels & 0xFF)) + pack2(self.capabilities()))
        self.hello_seq = self.send(T_HELLO, payload)

    def send_full_scan(self):
        self.send(T_FULL_SCAN, bytes((self.channels >> 8, self.channels & 0xFF)) + pack2(self.stable))

    def send_changes(self, changes):
        if len(changes) > MAX_CHANGES:
            self.send_full_scan()
            return
        payload = bytearray((len(changes),))
        for ch, r in changes:
            payload.extend(bytes((ch >> 8, ch & 0xFF, r)))
        self.send(T_CHANGE, bytes(payload))

    # -- commands --------------------------------------------------------------------------------

    def handle(self, seq, kind, payload):
        if kind == T_REQUEST_HELLO and not payload:
            self.send_hello()
        elif kind == T_REQUEST_SCAN and not payload:
            self.send_full_scan()
        elif kind == T_ACK and len(payload) == 2:
            if payload[0] == self.hello_seq:
                self.hello_acked = True
        elif kind == T_SET_LEDS and self.set_leds(payload):
            self.send(T_ACK, bytes((seq, 0)))
        else:
            self.send(T_ACK, bytes((seq, 1)))

    def set_leds(self, payload):
        if len(payload) < 2:
            return False
        count = (payload[0] << 8) | payload[1]
        if len(payload) != 2 + (count + 3) // 4:
            return False
        for ch in range(self.channels):
            v = (payload[2 + (ch >> 2)] >> ((ch & 3) * 2)) & 3 if ch < count else LED_OFF
            self.leds[ch] = v if v <= LED_BLINK else LED_OFF
        self.show_leds()
        return True

    def show_leds(self):
        if self.led_pin is None:
            return
        buf = bytearray(3 * self.channels)
        for ch, v in enumerate(self.leds):
            colour = COLOUR_ON if v == LED_ON else COLOUR_BLINK if v == LED_BLINK and self.blink_on else None
            if colour is not None:
                buf[3 * ch:3 * ch + 3] = bytes(colour)
        machine.bitstream(self.led_pin, 0, (400, 850, 800, 450), buf)  # WS2812 timing, ns

    # -- the loop ---------------------------------------------------------------------------------

    def poll(self, now):
        if self.started is None:
            self.started = now
            self.scan()
            self.last_scan = self.last_beat = self.last_full = self.last_blink = now
            self.send_hello()
            self.last_hello = now
        data = self.port.read()
        if data:
            for seq, kind, payload in self.parser.feed(data):
                self.handle(seq, kind, payload)
        if ticks_diff(now, self.last_scan) >= self.scan_ms:
            self.last_scan = now
            changes = self.scan()
            if changes:
                self.send_changes(changes)
        if ticks_diff(now, self.last_full) >= self.full_scan_ms:
            self.last_full = now
            self.send_full_scan()
        if ticks_diff(now, self.last_beat) >= self.heartbeat_ms:
            self.last_beat = now
            uptime = ticks_diff(now, self.started) & 0xFFFFFFFF
            self.send(T_HEARTBEAT, bytes((uptime >> 24, (uptime >> 16) & 0xFF, (uptime >> 8) & 0xFF, uptime & 0xFF)))
        if not self.hello_acked and ticks_diff(now, self.last_hello) >= self.hello_ms:
            self.last_hello = now
            self.send_hello()
        if LED_BLINK in self.leds and ticks_diff(now, self.last_blink) >= BLINK_MS:
            self.last_blink = now
            self.blink_on = not self.blink_on
            self.show_leds()


class UsbPort:
    """The Pico's USB serial (MicroPython's stdin/stdout), read without blocking."""

    def __init__(self, stdin, stdout, poller):
        self.stdin, self.stdout, self.poller = stdin, stdout, poller

    def read(self):
        data = bytearray()
        while len(data) < 64 and self.poller.poll(0):
            data.extend(self.stdin.read(1))
        return bytes(data)

    def write(self, data):
        self.stdout.write(data)


def main():
    import sys
    import time

    import micropython
    import select

    if machine.Pin(MAINTENANCE_PIN, machine.Pin.IN, machine.Pin.PULL_UP).value() == 0:
        return
    time.sleep_ms(2000)  # a window for mpremote's Ctrl-C right after plugging in
    micropython.kbd_intr(-1)  # from now on a frame byte 0x03 must not stop the program
    rows = [machine.Pin(p, machine.Pin.OUT, value=1) for p in ROW_PINS]
    cols = [machine.Pin(p, machine.Pin.IN, machine.Pin.PULL_UP) for p in COL_PINS]
    poller = select.poll()
    poller.register(sys.stdin, select.POLLIN)
    board = SensorBoard(rows, cols, UsbPort(sys.stdin.buffer, sys.stdout.buffer, poller), machine.Pin(LED_PIN, machine.Pin.OUT))
    board.show_leds()
    watchdog = machine.WDT(timeout=2000)  # a hung board reboots and says hello again
    while True:
        board.poll(time.ticks_ms())
        watchdog.feed()
        time.sleep_ms(1)


if __name__ == "__main__":
    main()
