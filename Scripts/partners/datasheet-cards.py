#!/usr/bin/env python3
"""Storage cards behind PC/SC part 3 readers, written from the datasheets and the reader manuals,
served as the card side of the vpcd protocol (vsmartcard) to `cardctl --reader vpcd:PORT`.

An independent partner for CardFlow's storage-card clients (issue 35): nothing here is taken from
CardFlow's client or simulator. Sources, facts only:
- MIFARE Classic 1K: NXP MF1S50yyX/V1 product data sheet (memory organisation, sector trailer,
  access conditions tables 7-9, value block format, "key B readable cannot serve for
  authentication", a failed authentication returns the card to IDLE).
- NTAG215: NXP NTAG213/215/216 data sheet (memory map, static/dynamic lock bytes, CFG0/CFG1,
  AUTH0 and PROT, READ roll-over, GET_VERSION 0004040201001103, PWD_AUTH, READ_CNT, READ_SIG,
  ACK 0xA and NAK 0x0/0x1/0x4/0x5).
- FeliCa Lite-S: Sony's FeliCa Lite-S user's manual (blocks, services 0x0009/0x000B, MC block,
  system codes 88B4 and 12FC with SYS_OP, Polling, Read/Write Without Encryption, status flags)
  and the NFC Forum Type 3 Tag attribute block.
- Readers: PC/SC part 3 v2.02+ (GET DATA FF CA, LOAD KEYS FF 82 P1 bit 5 non-volatile, GENERAL
  AUTHENTICATE FF 86, READ/UPDATE BINARY FF B0/FF D6, transparent exchange FF C2 with data objects
  81/82 session, 95 transceive, 5F46 timer, C0 generic error, 92 RX bits, 96 response status,
  97 ICC response; increment/decrement A0/A1 with 80 destination and 81 amount); ACS ACR122U
  API v2.04 and ACR1252U manual (key slots 00-01 volatile, value block FF D7/FF B1, direct
  transmit FF 00 00 00, 63 00 on failure); Identiv SCL3711 / uTrust 3720F reference manuals (LOAD
  KEYS P2 = key type 60/61, authenticate with key number 01).

Usage: datasheet-cards.py --port PORT --card classic1k|ntag215|felica-lite-s
                          --reader generic|acs|identiv [--uid HEX] [--log FILE]
The process connects to 127.0.0.1:PORT again after every disconnect (each cardctl command is a new
connection, the card is re-presented: volatile state reset) and keeps the card's memory until it
is stopped. A connection on which the reader says nothing for FIRST_MESSAGE_SECONDS is dropped and
made again: cardctl powers the card on at once, and on this kernel a connect() racing the previous
cardctl's exit was seen to leave a connection established on this side with nothing on the other
and no reset ever arriving, which blocked the card for every later command.
"""

import argparse
import socket
import struct
import sys
import time

OK = b"\x90\x00"
FAILED = b"\x63\x00"


def tck(atr_without_tck):
    value = 0
    for byte in atr_without_tck[1:]:
        value ^= byte
    return atr_without_tck + bytes([value])


def part3_atr(standard, name):
    """PC/SC part 3 §3.1.3.2.3 ATR of a storage card: RID A000000306, standard, card name."""
    historical = bytes([0x80, 0x4F, 0x0C, 0xA0, 0x00, 0x00, 0x03, 0x06, standard]) + name + bytes(4)
    return tck(bytes([0x3B, 0x80 | len(historical), 0x80, 0x01]) + historical)


class NAK(Exception):
    """A 4-bit NAK from a Type 2 tag or MIFARE Classic (code)."""

    def __init__(self, code):
        super().__init__(code)
        self.code = code


class Mute(Exception):
    """The card does not answer (time-out); it is back in IDLE."""


# ---------------------------------------------------------------- MIFARE Classic 1K (MF1S50)

# Data block rights by (C1, C2, C3): read, write, increment, decrement/transfer/restore; values
# are sets of key types ('A', 'B').
AB, B_, NONE = {"A", "B"}, {"B"}, set()
DATA_RIGHTS = {
    (0, 0, 0): (AB, AB, AB, AB),
    (0, 1, 0): (AB, NONE, NONE, NONE),
    (1, 0, 0): (AB, B_, NONE, NONE),
    (1, 1, 0): (AB, B_, B_, AB),
    (0, 0, 1): (AB, NONE, NONE, AB),
    (0, 1, 1): (B_, B_, NONE, NONE),
    (1, 0, 1): (B_, NONE, NONE, NONE),
    (1, 1, 1): (NONE, NONE, NONE, NONE),
}
# Trailer rights by (C1, C2, C3): key A write, access bits read, access bits write, key B read,
# key B write.
A_ = {"A"}
TRAILER_RIGHTS = {
    (0, 0, 0): (A_, A_, NONE, A_, A_),
    (0, 1, 0): (NONE, A_, NONE, A_, NONE),
    (1, 0, 0): (B_, AB, NONE, NONE, B_),
    (1, 1, 0): (NONE, AB, NONE, NONE, NONE),
    (0, 0, 1): (A_, A_, A_, A_, A_),
    (0, 1, 1): (B_, AB, B_, NONE, B_),
    (1, 0, 1): (NONE, AB, B_, NONE, NONE),
    (1, 1, 1): (NONE, AB, NONE, NONE, NONE),
}


def access_conditions(trailer):
    """(C1, C2, C3) for blocks 0-3 of the sector, or None for a malformed (inconsistent) set."""
    b6, b7, b8 = trailer[6], trailer[7], trailer[8]
    c1 = b7 >> 4
    c2 = b8 & 0x0F
    c3 = b8 >> 4
    if (b6 & 0x0F) != (~c1 & 0x0F) or (b6 >> 4) != (~c2 & 0x0F) or (b7 & 0x0F) != (~c3 & 0x0F):
        return None
    return [((c1 >> i) & 1, (c2 >> i) & 1, (c3 >> i) & 1) for i in range(4)]


def is_value_block(data):
    value, inverted, copy = data[0:4], data[4:8], data[8:12]
    address = data[12:16]
    return (
        value == copy
        and all(a ^ b == 0xFF for a, b in zip(value, inverted))
        and address[0] == address[2]
        and address[1] == address[3]
        and address[0] ^ address[1] == 0xFF
    )


class Classic1K:
    atr = part3_atr(0x03, b"\x00\x01")

    def __init__(self, uid):
        self.uid = uid
        self.blocks = [bytes(16) for _ in range(64)]
        bcc = uid[0] ^ uid[1] ^ uid[2] ^ uid[3]
        self.blocks[0] = uid + bytes([bcc, 0x08, 0x04, 0x00]) + bytes.fromhex("6263646566676869")
        transport = bytes.fromhex("FFFFFFFFFFFF") + bytes.fromhex("FF078069") + bytes.fromhex("FFFFFFFFFFFF")
        for sector in range(16):
            self.blocks[sector * 4 + 3] = transport
        self.power_on()

    def power_on(self):
        self.authenticated = None  # (sector, key type)
        self.value_register = None

    def idle(self):
        """An error: the card is back in IDLE and answers nothing until re-activated."""
        self.authenticated = None
        self.halted = True

    def reactivate(self):
        self.halted = False
        self.authenticated = None

    halted = False

    def trailer(self, sector):
        return self.blocks[sector * 4 + 3]

    def key_b_readable(self, sector):
        conditions = access_conditions(self.trailer(sector))
        return conditions is not None and TRAILER_RIGHTS[conditions[3]][3] == A_

    def authenticate(self, block, key_type, key):
        if self.halted:
            raise Mute()
        sector = block // 4
        trailer = self.trailer(sector)
        stored = trailer[0:6] if key_type == "A" else trailer[10:16]
        if key != stored:
            self.idle()
            raise Mute()
        self.authenticated = (sector, key_type)

    def _require(self, block, right_index, trailer_index=None):
        if self.halted or self.authenticated is None or self.authenticated[0] != block // 4:
            raise NAK(0x4)
        sector, key_type = self.authenticated
        conditions = access_conditions(self.trailer(sector))
        if conditions is None:
            raise NAK(0x4)
        # A key B that can be read cannot serve: after authenticating with it, every access is refused.
        if key_type == "B" and self.key_b_readable(sector):
            raise NAK(0x4)
        return key_type, conditions

    def read(self, block):
        key_type, conditions = self._require(block, 0)
        if block % 4 == 3:
            rights = TRAILER_RIGHTS[conditions[3]]
            trailer = self.trailer(block // 4)
            access = trailer[6:10] if key_type in rights[1] else bytes(4)
            key_b = trailer[10:16] if key_type in rights[3] else bytes(6)
            return bytes(6) + access + key_b
        if key_type not in DATA_RIGHTS[conditions[block % 4]][0]:
            raise NAK(0x4)
        return self.blocks[block]

    def write(self, block, data):
        key_type, conditions = self._require(block, 1)
        if block == 0:
            raise NAK(0x4)
        if block % 4 == 3:
            rights = TRAILER_RIGHTS[conditions[3]]
            old = self.trailer(block // 4)
            key_a = data[0:6] if key_type in rights[0] else old[0:6]
            access = data[6:10] if key_type in rights[2] else old[6:10]
            key_b = data[10:16] if key_type in rights[4] else old[10:16]
            self.blocks[block] = key_a + access + key_b
            return
        if key_type not in DATA_RIGHTS[conditions[block % 4]][1]:
            raise NAK(0x4)
        self.blocks[block] = bytes(data)

    def value_operation(self, operation, block, amount):
        """increment / decrement / restore into the value register (MF1S50 §12.6)."""
        key_type, conditions = self._require(block, 2)
        if block % 4 == 3:
            raise NAK(0x4)
        rights = DATA_RIGHTS[conditions[block % 4]]
        allowed = rights[2] if operation == "increment" else rights[3]
        if key_type not in allowed or not is_value_block(self.blocks[block]):
            raise NAK(0x4)
        value = struct.unpack("<i", self.blocks[block][0:4])[0]
        if operation == "increment":
            value += amount
        elif operation == "decrement":
            value -= amount
        if not -(2**31) <= value < 2**31:
            raise NAK(0x4)
        self.value_register = (value, self.blocks[block][12])

    def transfer(self, block):
        key_type, conditions = self._require(block, 3)
        if self.value_register is None or block % 4 == 3 or block == 0:
            raise NAK(0x4)
        if key_type not in DATA_RIGHTS[conditions[block % 4]][3]:
            raise NAK(0x4)
        value, address = self.value_register
        raw = struct.pack("<i", value)
        inverted = bytes(b ^ 0xFF for b in raw)
        self.blocks[block] = raw + inverted + raw + bytes([address, address ^ 0xFF, address, address ^ 0xFF])


# ---------------------------------------------------------------- NTAG215

class NTAG215:
    atr = part3_atr(0x03, b"\x00\x03")  # no PC/SC name for NTAG: readers report it as Ultralight
    pages_count = 135
    cfg0, cfg1, pwd_page, pack_page = 0x83, 0x84, 0x85, 0x86
    signature = bytes(range(0x20, 0x40))

    def __init__(self, uid):
        self.uid = uid
        self.pages = [bytes(4) for _ in range(self.pages_count)]
        bcc0 = 0x88 ^ uid[0] ^ uid[1] ^ uid[2]
        bcc1 = uid[3] ^ uid[4] ^ uid[5] ^ uid[6]
        self.pages[0] = uid[0:3] + bytes([bcc0])
        self.pages[1] = uid[3:7]
        self.pages[2] = bytes([bcc1, 0x48, 0x00, 0x00])
        self.pages[3] = bytes.fromhex("E1103E00")
        self.pages[4] = bytes.fromhex("0300FE00")
        self.pages[0x82] = bytes.fromhex("000000BD")
        self.pages[self.cfg0] = bytes.fromhex("040000FF")
        self.pages[self.cfg1] = bytes.fromhex("00050000")
        self.pwd = bytes.fromhex("FFFFFFFF")
        self.pack = bytes.fromhex("0000")
        self.nfc_counter = 0
        self.power_on()

    def power_on(self):
        self.authenticated = False
        self.halted = False
        self.counted = False

    def reactivate(self):
        self.power_on()

    @property
    def auth0(self):
        return self.pages[self.cfg0][3]

    @property
    def access(self):
        return self.pages[self.cfg1][0]

    def readable_end(self):
        """Reads stop (and roll over) at AUTH0 when PROT protects reads and no PWD_AUTH was done."""
        if self.access & 0x80 and not self.authenticated and self.auth0 < self.pages_count:
            return self.auth0
        return self.pages_count

    def page_bytes(self, page):
        if page == self.pwd_page:
            return bytes(4)
        if page == self.pack_page:
            return bytes(4)
        return self.pages[page]

    def count_read(self):
        # NFC_CNT_EN (ACCESS bit 4): the first READ/FAST_READ after activation counts.
        if self.access & 0x10 and not self.counted:
            self.counted = True
            self.nfc_counter = min(self.nfc_counter + 1, 0xFFFFFF)

    def write_allowed(self, page):
        if page < 2 or page >= self.pages_count:
            return False
        if page >= self.auth0 and not self.authenticated:
            return False
        lock0, lock1 = self.pages[2][2], self.pages[2][3]
        if 3 <= page <= 7 and lock0 & (1 << page):
            return False
        if 8 <= page <= 15 and lock1 & (1 << (page - 8)):
            return False
        return True

    def command(self, frame):
        """A Type 2 frame (without CRC) → the answer bytes; NAK or Mute as exceptions."""
        if self.halted or not frame:
            raise Mute()
        code = frame[0]
        try:
            return self._command(code, frame)
        except NAK:
            self.halted = True
            self.authenticated = False
            raise

    def _command(self, code, frame):
        if code == 0x60 and len(frame) == 1:
            return bytes.fromhex("0004040201001103")
        if code == 0x30 and len(frame) == 2:
            start, end = frame[1], self.readable_end()
            if start >= end:
                raise NAK(0x0)
            self.count_read()
            return b"".join(self.page_bytes((start + i) % end) for i in range(4))
        if code == 0x3A and len(frame) == 3:
            start, stop, end = frame[1], frame[2], self.readable_end()
            if start > stop or stop >= end:
                raise NAK(0x0)
            self.count_read()
            return b"".join(self.page_bytes(page) for page in range(start, stop + 1))
        if code in (0xA2, 0xA0) and len(frame) == (6 if code == 0xA2 else 18):
            page, data = frame[1], frame[2:6]
            if not self.write_allowed(page):
                raise NAK(0x0)
            self.write_page(page, data)
            return "ACK"
        if code == 0x39 and len(frame) == 2:
            if frame[1] != 0x02 or not self.access & 0x10:
                raise NAK(0x0)
            if self.access & 0x08 and not self.authenticated:  # NFC_CNT_PWD_PROT
                raise NAK(0x0)
            return self.nfc_counter.to_bytes(3, "little")
        if code == 0x1B and len(frame) == 5:
            if frame[1:5] != self.pwd:
                raise NAK(0x0)
            self.authenticated = True
            return self.pack
        if code == 0x3C and len(frame) == 2 and frame[1] == 0x00:
            return self.signature
        raise NAK(0x0)

    def write_page(self, page, data):
        if page == 2:
            # Bytes 0-1 are read-only; lock bytes are one-time programmable (OR).
            old = self.pages[2]
            self.pages[2] = old[0:2] + bytes([old[2] | data[2], old[3] | data[3]])
        elif page == 3:
            self.pages[3] = bytes(a | b for a, b in zip(self.pages[3], data))
        elif page == self.pwd_page:
            self.pwd = bytes(data)
        elif page == self.pack_page:
            self.pack = bytes(data[0:2])
        else:
            self.pages[page] = bytes(data)


# ---------------------------------------------------------------- FeliCa Lite-S

class FeliCaLiteS:
    atr = part3_atr(0x11, b"\x00\x3B")
    pmm = bytes.fromhex("00F1000000014300")
    user_blocks = range(0x00, 0x0E)

    def __init__(self, uid):
        self.idm = uid
        self.blocks = {block: bytes(16) for block in list(range(0x00, 0x0F)) + list(range(0x80, 0x93)) + [0xA0]}
        self.blocks[0x82] = self.idm + bytes(8)
        self.blocks[0x83] = self.idm + self.pmm
        self.blocks[0x85] = bytes.fromhex("88B4") + bytes(14)
        # MC: MC_SP all writable, MC_ALL FF (writable), SYS_OP 00 (no NDEF yet).
        self.blocks[0x88] = bytes.fromhex("FFFFFF00") + bytes(12)

    def power_on(self):
        pass

    def reactivate(self):
        pass

    def system_codes(self):
        codes = [b"\x88\xB4"]
        if self.blocks[0x88][3] == 0x01:
            codes.insert(0, b"\x12\xFC")
        return codes

    def command(self, frame):
        """A FeliCa frame with its length byte → the answer frame with its length byte."""
        if not frame or frame[0] != len(frame) or len(frame) < 2:
            raise Mute()
        code, body = frame[1], frame[2:]
        if code == 0x00 and len(body) == 4:
            system, request = body[0:2], body[2]
            # FF in either byte of the requested system code is a wildcard for that byte.
            matching = [c for c in self.system_codes() if all(s in (0xFF, b) for s, b in zip(system, c))]
            if not matching:
                raise Mute()
            answer = bytes([0x01]) + self.idm + self.pmm
            if request == 0x01:
                answer += matching[0]
            return bytes([len(answer) + 1]) + answer
        if code in (0x06, 0x08) and len(body) >= 11:
            if body[0:8] != self.idm:
                raise Mute()
            services = body[8]
            if services != 1:
                return self.status(code, 0xFF, 0xA1)
            service = int.from_bytes(body[9:11], "little")
            count = body[11] if len(body) > 11 else 0
            blocks, rest = [], body[12:]
            for _ in range(count):
                if len(rest) >= 2 and rest[0] & 0x80:
                    blocks.append(rest[1])
                    rest = rest[2:]
                elif len(rest) >= 3:
                    blocks.append(int.from_bytes(rest[1:3], "little"))
                    rest = rest[3:]
                else:
                    return self.status(code, 0xFF, 0xA2)
            if code == 0x06:
                return self.read(service, blocks)
            return self.write(service, blocks, rest)
        raise Mute()

    def status(self, code, flag1, flag2, data=b""):
        answer = bytes([code + 1]) + self.idm + bytes([flag1, flag2]) + data
        return bytes([len(answer) + 1]) + answer

    def read(self, service, blocks):
        if service not in (0x000B, 0x0009):
            return self.status(0x06, 0xFF, 0xA6)
        if not 1 <= len(blocks) <= 4:
            return self.status(0x06, 0xFF, 0xA2)
        data = b""
        for block in blocks:
            if block not in self.blocks or block in (0x81, 0x87):  # MAC and CK are not readable
                return self.status(0x06, 0xFF, 0xA8)
            data += self.blocks[block]
        return self.status(0x06, 0x00, 0x00, bytes([len(blocks)]) + data)

    def write(self, service, blocks, data):
        if service != 0x0009:
            return self.status(0x08, 0xFF, 0xA6)
        if len(blocks) != 1 or len(data) != 16:
            return self.status(0x08, 0xFF, 0xA2)
        block = blocks[0]
        if block not in self.blocks or block in (0x82, 0x83, 0x84, 0x85, 0x86, 0x91, 0x92, 0xA0):
            return self.status(0x08, 0xFF, 0xA8)
        mc = self.blocks[0x88]
        if mc[2] != 0xFF and block != 0x80:
            return self.status(0x08, 0xFF, 0xA8)
        if block in self.user_blocks:
            read_only = int.from_bytes(mc[0:2], "little")
            if not read_only & (1 << block):  # MC_SP bit 0: read-only
                return self.status(0x08, 0xFF, 0xA8)
        self.blocks[block] = bytes(data)
        return self.status(0x08, 0x00, 0x00)


# ---------------------------------------------------------------- readers (PC/SC part 3 dialects)

def tlv(tag, value):
    tag_bytes = tag.to_bytes(2, "big") if tag > 0xFF else bytes([tag])
    return tag_bytes + bytes([len(value)]) + value


def parse_tlvs(data):
    objects, index = [], 0
    while index < len(data):
        tag = data[index]
        index += 1
        if tag & 0x1F == 0x1F:
            tag = tag << 8 | data[index]
            index += 1
        if index >= len(data):
            raise ValueError("cut object")
        length = data[index]
        index += 1
        if length == 0x81:
            length = data[index]
            index += 1
        value = data[index : index + length]
        if len(value) != length:
            raise ValueError("cut object")
        objects.append((tag, value))
        index += length
    return objects


class Reader:
    """PC/SC part 3 as written (the generic reader)."""

    name = "generic"
    volatile_slots = range(0x00, 0x02)
    non_volatile_slots = range(0x00, 0x20)

    def __init__(self, card):
        self.card = card
        self.non_volatile = {}
        self.power_on()

    def power_on(self):
        self.volatile = {}
        self.session = False
        self.card.power_on()
        self.card.reactivate()

    def apdu(self, command):
        if len(command) < 4:
            return b"\x67\x00"
        cla, ins, p1, p2 = command[0:4]
        if cla != 0xFF:
            return b"\x6E\x00"
        data = command[5 : 5 + command[4]] if len(command) > 5 else b""
        le = command[4] if len(command) == 5 else None
        handler = {
            0xCA: self.get_data,
            0x82: self.load_keys,
            0x86: self.general_authenticate,
            0xB0: self.read_binary,
            0xD6: self.update_binary,
            0xC2: self.transparent_exchange,
            0xD7: self.acs_value,
            0xB1: self.acs_read_value,
            0x00: self.direct_transmit,
        }.get(ins)
        if handler is None:
            return b"\x6D\x00"
        return handler(p1, p2, data, le)

    # --- common commands

    def get_data(self, p1, p2, data, le):
        if p1 == 0x00 and p2 == 0x00:
            uid = self.card.uid if hasattr(self.card, "uid") else self.card.idm
            return uid + OK
        return b"\x6A\x81"

    def load_keys(self, p1, p2, data, le):
        if len(data) != 6:
            return b"\x67\x00"
        if p1 == 0x20:
            if p2 not in self.non_volatile_slots:
                return b"\x69\x88"
            self.non_volatile[p2] = bytes(data)
        elif p1 == 0x00:
            if p2 not in self.volatile_slots:
                return b"\x69\x88"
            self.volatile[p2] = bytes(data)
        else:
            return b"\x6A\x81"
        return OK

    def key_for(self, key_type, key_number):
        return self.volatile.get(key_number, self.non_volatile.get(key_number))

    def general_authenticate(self, p1, p2, data, le):
        if not isinstance(self.card, Classic1K):
            return b"\x6A\x81"
        if len(data) != 5 or data[0] != 0x01 or data[3] not in (0x60, 0x61):
            return b"\x6A\x80" if len(data) == 5 else b"\x67\x00"
        block = data[1] << 8 | data[2]
        if block >= 64:
            return b"\x6A\x82"
        key_type = "A" if data[3] == 0x60 else "B"
        key = self.key_for(key_type, data[4])
        if key is None:
            return b"\x69\x86"
        try:
            self.card.authenticate(block, key_type, key)
        except Mute:
            return FAILED
        return OK

    def read_binary(self, p1, p2, data, le):
        address = p1 << 8 | p2
        length = 256 if le == 0 else le
        if length is None:
            return b"\x67\x00"
        try:
            if isinstance(self.card, Classic1K):
                if address >= 64 or length not in (16, 256):
                    return b"\x6A\x82" if address >= 64 else b"\x6C\x10"
                return self.card.read(address) + OK
            if isinstance(self.card, NTAG215):
                if address >= self.card.pages_count:
                    return b"\x6A\x82"
                # READ returns four pages; longer reads are several READs.
                out = b""
                page = address
                while len(out) < length:
                    out += self.card.command(bytes([0x30, page]))
                    page += 4
                return out[:length] + OK
        except (NAK, Mute):
            return FAILED
        return b"\x6A\x81"

    def update_binary(self, p1, p2, data, le):
        address = p1 << 8 | p2
        try:
            if isinstance(self.card, Classic1K):
                if address >= 64:
                    return b"\x6A\x82"
                if len(data) != 16:
                    return b"\x67\x00"
                self.card.write(address, data)
                return OK
            if isinstance(self.card, NTAG215):
                if len(data) % 4 or not data:
                    return b"\x67\x00"
                for offset in range(0, len(data), 4):
                    self.card.command(bytes([0xA2, address + offset // 4]) + data[offset : offset + 4])
                return OK
        except (NAK, Mute):
            return FAILED
        return b"\x6A\x81"

    # --- raw frames

    def raw(self, frame):
        """The card's answer to a raw frame: bytes, ('NAK', code) or None (no answer)."""
        try:
            answer = self.card.command(frame) if hasattr(self.card, "command") else None
        except NAK as nak:
            return ("NAK", nak.code)
        except Mute:
            return None
        if answer == "ACK":
            return ("ACK", 0x0A)
        return answer

    def transparent_exchange(self, p1, p2, data, le):
        try:
            objects = parse_tlvs(data)
        except (ValueError, IndexError):
            return tlv(0xC0, b"\x01\x67\x00") + OK
        if p2 == 0x00:  # manage session
            for tag, _ in objects:
                if tag == 0x81:
                    self.session = True
                elif tag == 0x82:
                    self.session = False
            return tlv(0xC0, b"\x00\x90\x00") + OK
        if p2 == 0x01:  # transparent exchange: transceive
            frames = [value for tag, value in objects if tag == 0x95]
            if len(frames) != 1:
                return tlv(0xC0, b"\x01\x6A\x80") + OK
            answer = self.raw(frames[0])
            if answer is None:
                return tlv(0xC0, b"\x01\x64\x01") + OK
            if isinstance(answer, tuple):
                return tlv(0xC0, b"\x00\x90\x00") + tlv(0x92, b"\x04") + tlv(0x96, b"\x00\x00") + tlv(
                    0x97, bytes([answer[1]])) + OK
            return tlv(0xC0, b"\x00\x90\x00") + tlv(0x92, b"\x00") + tlv(0x96, b"\x00\x00") + tlv(0x97, answer) + OK
        if p2 == 0x03:  # increment / decrement
            return self.part3_value(objects)
        return tlv(0xC0, b"\x00\x6A\x81") + OK

    def part3_value(self, objects):
        if not isinstance(self.card, Classic1K) or len(objects) != 1 or objects[0][0] not in (0xA0, 0xA1):
            return tlv(0xC0, b"\x00\x6A\x81") + OK
        operation = "increment" if objects[0][0] == 0xA0 else "decrement"
        try:
            inner = dict(parse_tlvs(objects[0][1]))
        except (ValueError, IndexError):
            return tlv(0xC0, b"\x00\x6A\x80") + OK
        if set(inner) != {0x80, 0x81} or len(inner[0x80]) != 1 or len(inner[0x81]) != 4:
            return tlv(0xC0, b"\x00\x6A\x80") + OK
        block = inner[0x80][0]
        amount = struct.unpack("<I", inner[0x81])[0]
        try:
            self.card.value_operation(operation, block, amount)
            self.card.transfer(block)
        except (NAK, Mute):
            return tlv(0xC0, b"\x00\x63\x00") + OK
        return tlv(0xC0, b"\x00\x90\x00") + OK

    # --- vendor commands this reader does not have

    def acs_value(self, p1, p2, data, le):
        return b"\x6D\x00"

    def acs_read_value(self, p1, p2, data, le):
        return b"\x6D\x00"

    def direct_transmit(self, p1, p2, data, le):
        return b"\x6D\x00"


class ACSReader(Reader):
    """ACS (ACR1252U): key slots 00-01 (volatile only), value block commands, direct transmit."""

    name = "acs"
    volatile_slots = range(0x00, 0x02)
    non_volatile_slots = range(0)

    def load_keys(self, p1, p2, data, le):
        if p1 != 0x00 or p2 not in self.volatile_slots or len(data) != 6:
            return FAILED
        self.volatile[p2] = bytes(data)
        return OK

    def general_authenticate(self, p1, p2, data, le):
        answer = super().general_authenticate(p1, p2, data, le)
        return answer if answer == OK else FAILED

    def transparent_exchange(self, p1, p2, data, le):
        return b"\x6D\x00"

    def acs_value(self, p1, p2, data, le):
        if not isinstance(self.card, Classic1K):
            return FAILED
        block = p2
        try:
            if len(data) == 5 and data[0] in (0x00, 0x01, 0x02):
                amount = struct.unpack(">i", data[1:5])[0]
                if data[0] == 0x00:  # store: write a value block
                    raw = struct.pack("<i", amount)
                    inverted = bytes(b ^ 0xFF for b in raw)
                    self.card.write(block, raw + inverted + raw + bytes([block, block ^ 0xFF, block, block ^ 0xFF]))
                    return OK
                if amount < 0:
                    return FAILED
                self.card.value_operation("increment" if data[0] == 0x01 else "decrement", block, amount)
                self.card.transfer(block)
                return OK
            if len(data) == 2 and data[0] == 0x03:  # restore: copy block p2 to data[1]
                target = data[1]
                if target // 4 != block // 4:
                    return FAILED
                self.card.value_operation("restore", block, 0)
                self.card.transfer(target)
                return OK
        except (NAK, Mute):
            return FAILED
        return FAILED

    def acs_read_value(self, p1, p2, data, le):
        if not isinstance(self.card, Classic1K) or le != 4:
            return FAILED
        try:
            block = self.card.read(p2)
        except (NAK, Mute):
            return FAILED
        if not is_value_block(block):
            return FAILED
        return struct.pack(">i", struct.unpack("<i", block[0:4])[0]) + OK

    def direct_transmit(self, p1, p2, data, le):
        if p1 != 0x00 or p2 != 0x00 or not data:
            return b"\x6A\x81"
        answer = self.raw(bytes(data))
        if answer is None:
            return FAILED
        if isinstance(answer, tuple):
            return bytes([answer[1]]) + OK
        return answer + OK


class IdentivReader(Reader):
    """Identiv/SCM: LOAD KEYS P2 = key type (60/61), one volatile key per type; authenticate
    with key number 01 after the key type; no value block commands of its own (PC/SC part 3
    increment/decrement through FF C2 00 03)."""

    name = "identiv"

    def load_keys(self, p1, p2, data, le):
        if p1 != 0x00 or p2 not in (0x60, 0x61) or len(data) != 6:
            return b"\x69\x88"
        self.volatile[p2] = bytes(data)
        return OK

    def key_for(self, key_type, key_number):
        if key_number != 0x01:
            return None
        return self.volatile.get(0x60 if key_type == "A" else 0x61)


READERS = {"generic": Reader, "acs": ACSReader, "identiv": IdentivReader}
CARDS = {
    "classic1k": (Classic1K, "04A1B2C3"),
    "ntag215": (NTAG215, "04A1B2C3D4E580"),
    "felica-lite-s": (FeliCaLiteS, "012E4CD5A1B2C3D4"),
}


# ---------------------------------------------------------------- vpcd card side

def receive(sock, count):
    data = b""
    while len(data) < count:
        chunk = sock.recv(count - len(data))
        if not chunk:
            raise ConnectionError("closed")
        data += chunk
    return data


FIRST_MESSAGE_SECONDS = 3


def serve(sock, reader, log):
    sock.settimeout(FIRST_MESSAGE_SECONDS)
    while True:
        length = struct.unpack(">H", receive(sock, 2))[0]
        sock.settimeout(None)
        message = receive(sock, length)
        if length == 1:
            if message[0] in (0x00,):
                continue
            if message[0] in (0x01, 0x02):
                reader.power_on()
                continue
            if message[0] == 0x04:
                answer = reader.card.atr
            else:
                continue
        else:
            answer = reader.apdu(message)
        if log:
            log.write(f"{message.hex().upper()} -> {answer.hex().upper()}\n")
            log.flush()
        sock.sendall(struct.pack(">H", len(answer)) + answer)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--card", choices=sorted(CARDS), required=True)
    parser.add_argument("--reader", choices=sorted(READERS), default="generic")
    parser.add_argument("--uid")
    parser.add_argument("--log")
    arguments = parser.parse_args()
    card_type, uid = CARDS[arguments.card]
    card = card_type(bytes.fromhex(arguments.uid or uid))
    reader = READERS[arguments.reader](card)
    log = open(arguments.log, "a") if arguments.log else None
    while True:
        try:
            sock = socket.create_connection(("127.0.0.1", arguments.port), timeout=2)
        except OSError:
            time.sleep(0.05)
            continue
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        reader.power_on()
        ending = "-- disconnected\n"
        try:
            serve(sock, reader, log)
        except TimeoutError:
            ending = f"-- nothing from the reader in {FIRST_MESSAGE_SECONDS} s: connecting again\n"
        except (ConnectionError, OSError):
            pass
        finally:
            sock.close()
        if log:
            log.write(ending)
            log.flush()


if __name__ == "__main__":
    sys.exit(main())
