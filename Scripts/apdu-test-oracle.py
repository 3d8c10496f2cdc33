#!/usr/bin/env python3
"""The answers the simulator's APDU test card (`sim:apdu-test`) gives, computed from its
documented command set (the table in APDUTestCard's documentation, ISO/IEC 7816-4 §5.1 length
fields) and nothing else, so that Scripts/ccid-differential.sh can tell two host stacks that
agree on the card's answers from two that agree on garbage.

Reads an APDU script on standard input (one APDU in hex per line; a line `--` starts a new card
session: power-on clears the card's state) and prints one `OK HEX` line per APDU (response data
and SW1 SW2), as the differential's clients print what they received.

Usage: apdu-test-oracle.py < script.txt
"""
import sys

AID = bytes.fromhex("F0434641504455")
MAX_PATTERN = 4096


def pattern(count, start):
    """Pattern(n, s): b[i] = (i + s) mod 251."""
    return bytes((i + start) % 251 for i in range(count))


def fletcher16(data):
    low = high = 0
    for byte in data:
        low = (low + byte) % 255
        high = (high + low) % 255
    return bytes([high, low])


def parse(apdu):
    """(cla, ins, p1, p2, data, ne, case) per ISO/IEC 7816-4 §5.1; ne None: no Le; None if malformed."""
    if len(apdu) < 4:
        return None
    cla, ins, p1, p2 = apdu[:4]
    body = apdu[4:]
    if not body:
        return cla, ins, p1, p2, b"", None, 1
    if len(body) == 1:
        return cla, ins, p1, p2, b"", body[0] or 256, 2
    if body[0] != 0:
        lc = body[0]
        if len(body) == 1 + lc:
            return cla, ins, p1, p2, body[1:], None, 3
        if len(body) == 2 + lc:
            return cla, ins, p1, p2, body[1:-1], body[-1] or 256, 4
        return None
    if len(body) == 3:
        return cla, ins, p1, p2, b"", (body[1] << 8 | body[2]) or 65536, 2
    lc = body[1] << 8 | body[2]
    if lc == 0:
        return None
    if len(body) == 3 + lc:
        return cla, ins, p1, p2, body[3:], None, 3
    if len(body) == 5 + lc:
        return cla, ins, p1, p2, body[3:-2], (body[-2] << 8 | body[-1]) or 65536, 4
    return None


def sw(value):
    return bytes([value >> 8, value & 0xFF])


def count_byte(count):
    """SW2 of 61 XX and 6C XX: the count, 00 meaning 256 or more (ISO/IEC 7816-4 §5.6)."""
    return 0 if count >= 256 else count


class Card:
    def __init__(self):
        self.waiting = None  # bytes waiting for GET RESPONSE
        self.receipt = None  # the last SINK's length and checksum

    def answer(self, apdu):
        parsed = parse(apdu)
        waiting, self.waiting = self.waiting, None  # any other command drops waiting data
        if parsed is None:
            return sw(0x6700)
        cla, ins, p1, p2, data, ne, case = parsed
        if cla == 0x00 and ins == 0xC0:
            self.waiting = waiting
            return self.get_response(p1, p2, ne, case)
        if cla == 0x00 and ins == 0xA4:
            if p1 != 0x04:
                return sw(0x6A82)
            if case not in (3, 4):
                return sw(0x6700)
            return sw(0x9000) if data == AID else sw(0x6A82)
        if cla != 0x80:
            return sw(0x6E00)
        if ins == 0x10:
            if case != 1:
                return sw(0x6700)
            return sw(0x9000) if (p1, p2) == (0, 0) else sw(0x6B00)
        if ins == 0x20:
            if case != 2:
                return sw(0x6700)
            if p2 != 0:
                return sw(0x6B00)
            if ne > MAX_PATTERN:
                return pattern(MAX_PATTERN, p1) + sw(0x6282)
            return pattern(ne, p1) + sw(0x9000)
        if ins == 0x30:
            if case != 3:
                return sw(0x6700)
            if (p1, p2) != (0, 0):
                return sw(0x6B00)
            self.receipt = len(data).to_bytes(2, "big") + fletcher16(data)
            return sw(0x9000)
        if ins == 0x32:
            if case != 2:
                return sw(0x6700)
            if (p1, p2) != (0, 0):
                return sw(0x6B00)
            if self.receipt is None:
                return sw(0x6985)
            return self.receipt[:ne] + sw(0x9000)
        if ins == 0x40:
            if case != 4:
                return sw(0x6700)
            if (p1, p2) != (0, 0):
                return sw(0x6B00)
            return data[::-1][:ne] + sw(0x9000)
        if ins == 0x50:
            if case == 1:
                count = p1 << 8 | p2
                if not 1 <= count <= MAX_PATTERN:
                    return sw(0x6B00)
                return self.defer(pattern(count, 0))
            if case == 3:
                if (p1, p2) != (0, 0):
                    return sw(0x6B00)
                return self.defer(data[::-1])
            return sw(0x6700)
        if ins == 0x60:
            if case != 2:
                return sw(0x6700)
            if p2 != 0:
                return sw(0x6B00)
            available = p1 or 256
            if ne == available:
                return pattern(available, 0x60) + sw(0x9000)
            return sw(0x6C00 | count_byte(available))
        return sw(0x6D00)

    def defer(self, data):
        self.waiting = data
        return sw(0x6100 | count_byte(len(data)))

    def get_response(self, p1, p2, ne, case):
        if case != 2:
            self.waiting = None
            return sw(0x6700)
        if (p1, p2) != (0, 0):
            self.waiting = None
            return sw(0x6B00)
        waiting, self.waiting = self.waiting, None
        if not waiting:
            return sw(0x6985)
        # An explicit Le above what is left is answered 6C XX (the data stays waiting).
        if ne > len(waiting) and not (ne == 256 and len(waiting) >= 256):
            self.waiting = waiting
            return sw(0x6C00 | count_byte(len(waiting)))
        part, rest = waiting[:ne], waiting[ne:]
        if rest:
            self.waiting = rest
            return part + sw(0x6100 | count_byte(len(rest)))
        return part + sw(0x9000)


def main():
    card = Card()
    for line in sys.stdin:
        line = line.strip().replace(" ", "")
        if not line:
            continue
        if line == "--":
            card = Card()
            continue
        print("OK " + card.answer(bytes.fromhex(line)).hex().upper())


if __name__ == "__main__":
    main()
