#!/usr/bin/python3
"""cardctl's JSON answers and exit codes, checked against pyscard over pcsc-lite (nobody here
wrote either) on the same PC/SC reader.

pyscard is the oracle: what it reads (the ATR, each APDU's data and status word) must be what
`cardctl --json` prints, parsed by Python's strict JSON decoder; and the failure pcsc-lite
reports for a situation (its SCARD_* code, grouped as pcsc-lite documents them in pcsclite.h:
the card's trouble or the reader's/service's) must be the category of cardctl's exit code
(1 card, 3 reader; README "Exit codes").

Usage:
  cardctl-pyscard.py present CARDCTL READER APDU...   a card is in READER
  cardctl-pyscard.py absent CARDCTL READER            READER is there, with no card in it
  cardctl-pyscard.py no-service CARDCTL READER        no pcscd runs
Prints "ok: ..." lines; exits 1 on a disagreement.
"""
import json
import subprocess
import sys

from smartcard.System import readers
from smartcard.scard import (
    SCARD_E_NO_READERS_AVAILABLE,
    SCARD_E_NO_SERVICE,
    SCARD_E_NO_SMARTCARD,
    SCARD_E_READER_UNAVAILABLE,
    SCARD_E_UNKNOWN_READER,
    SCARD_W_REMOVED_CARD,
    SCARD_W_UNPOWERED_CARD,
    SCARD_W_UNRESPONSIVE_CARD,
    SCARD_LEAVE_CARD,
    SCARD_PROTOCOL_T0,
    SCARD_PROTOCOL_T1,
    SCARD_S_SUCCESS,
    SCARD_SCOPE_USER,
    SCARD_SHARE_SHARED,
    SCARD_STATE_EMPTY,
    SCARD_STATE_UNAWARE,
    SCardConnect,
    SCardGetStatusChange,
    SCardDisconnect,
    SCardEstablishContext,
    SCardReleaseContext,
)

# pcsc-lite's codes by whose trouble they describe (pcsclite.h's own wording: "The smart card
# has been removed", "The specified reader is not currently available", "The Smart card resource
# manager is not running"...).
CARD_CODES = {SCARD_E_NO_SMARTCARD, SCARD_W_REMOVED_CARD, SCARD_W_UNRESPONSIVE_CARD, SCARD_W_UNPOWERED_CARD}
READER_CODES = {SCARD_E_NO_SERVICE, SCARD_E_UNKNOWN_READER, SCARD_E_READER_UNAVAILABLE, SCARD_E_NO_READERS_AVAILABLE}
EXIT_FOR = {"card": 1, "reader": 3}


def fail(message: str) -> None:
    print(f"FAIL: {message}")
    sys.exit(1)


def strict_json(text: str, what: str):
    """Python's decoder, refusing what a lenient one takes: duplicate keys, NaN/Infinity."""

    def no_duplicates(pairs):
        keys = [key for key, _ in pairs]
        if len(keys) != len(set(keys)):
            fail(f"{what}: duplicate keys {keys}")
        return dict(pairs)

    def no_constants(name):
        fail(f"{what}: non-JSON constant {name}")

    try:
        return json.loads(text, object_pairs_hook=no_duplicates, parse_constant=no_constants)
    except json.JSONDecodeError as error:
        fail(f"{what}: not JSON ({error}): {text!r}")


def cardctl(binary: str, reader: str, *arguments: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [binary, "--reader", f"pcsc:{reader}", "--wait", "0", *arguments],
        capture_output=True, text=True, timeout=60)


def category_of(code: int) -> str:
    if code in CARD_CODES:
        return "card"
    if code in READER_CODES:
        return "reader"
    fail(f"pcsc-lite answered 0x{code & 0xFFFFFFFF:08X}, which this check does not classify")


def pyscard_failure(reader_name: str) -> int:
    """The SCARD_* code pcsc-lite gives pyscard's SCardConnect to `reader_name`."""
    code, context = SCardEstablishContext(SCARD_SCOPE_USER)
    if code != SCARD_S_SUCCESS:
        return code
    try:
        code, card, _ = SCardConnect(context, reader_name, SCARD_SHARE_SHARED, SCARD_PROTOCOL_T0 | SCARD_PROTOCOL_T1)
        if code == SCARD_S_SUCCESS:
            SCardDisconnect(card, SCARD_LEAVE_CARD)
            fail(f"pyscard connected to {reader_name!r}, which this case expects to fail")
        return code
    finally:
        SCardReleaseContext(context)


def wait_until_empty(reader_name: str) -> None:
    """Until pcsc-lite reports the slot empty: a card side that just left (vpcd) can leave the
    slot "present, unpowered" for a moment, which is another situation than an empty reader."""
    code, context = SCardEstablishContext(SCARD_SCOPE_USER)
    if code != SCARD_S_SUCCESS:
        fail(f"SCardEstablishContext: 0x{code & 0xFFFFFFFF:08X}")
    try:
        state = SCARD_STATE_UNAWARE
        for _ in range(40):
            code, states = SCardGetStatusChange(context, 500, [(reader_name, state)])
            if code == SCARD_S_SUCCESS:
                state = states[0][1]
                if state & SCARD_STATE_EMPTY:
                    return
        fail(f"{reader_name!r} did not become empty within 20 s (state 0x{state:X})")
    finally:
        SCardReleaseContext(context)


def expect_category(binary: str, reader: str, situation: str) -> None:
    code = pyscard_failure(reader)
    category = category_of(code)
    result = cardctl(binary, reader, "apdu", "00A4000C023F00")
    if result.returncode != EXIT_FOR[category]:
        fail(f"{situation}: pcsc-lite says 0x{code & 0xFFFFFFFF:08X} ({category}), cardctl exited "
             f"{result.returncode}, not {EXIT_FOR[category]}: {result.stderr.strip()}")
    print(f"ok: {situation}: pcsc-lite 0x{code & 0xFFFFFFFF:08X} ({category}); cardctl exit "
          f"{result.returncode}: {result.stderr.strip()}")


def present(binary: str, reader_name: str, apdus: list[str]) -> None:
    matching = [reader for reader in readers() if str(reader) == reader_name]
    if not matching:
        fail(f"no reader named {reader_name!r}: {[str(r) for r in readers()]}")
    connection = matching[0].createConnection()
    connection.connect()
    atr = bytes(connection.getATR()).hex().upper()
    answers = []
    for apdu in apdus:
        data, sw1, sw2 = connection.transmit(list(bytes.fromhex(apdu)))
        answers.append((bytes(data).hex().upper(), f"{sw1:02X}{sw2:02X}"))
    connection.disconnect()

    identified = cardctl(binary, reader_name, "--json", "identify")
    if identified.returncode != 0:
        fail(f"cardctl identify exited {identified.returncode}: {identified.stderr}")
    document = strict_json(identified.stdout, "cardctl identify --json")
    if document.get("atr") != atr:
        fail(f"ATR: pyscard read {atr}, cardctl --json says {document.get('atr')!r}")
    print(f"ok: identify --json: ATR {atr}, as pyscard read it")

    sent = cardctl(binary, reader_name, "--json", "apdu", *apdus)
    if sent.returncode != 0:
        fail(f"cardctl apdu exited {sent.returncode}: {sent.stderr}")
    printed = strict_json(sent.stdout, "cardctl apdu --json")
    if not isinstance(printed, list) or len(printed) != len(apdus):
        fail(f"cardctl apdu --json: expected a list of {len(apdus)} answers: {printed!r}")
    for apdu, (data, sw), answer in zip(apdus, answers, printed):
        if answer.get("command") != apdu.upper() or answer.get("sw") != sw:
            fail(f"{apdu}: pyscard got SW {sw}, cardctl printed {answer!r}")
        # GET CHALLENGE answers new random bytes each time: compare their length only.
        same_data = len(answer.get("data", "")) == len(data) if apdu.upper().startswith("0084") else answer.get("data") == data
        if not same_data:
            fail(f"{apdu}: pyscard got data {data!r}, cardctl printed {answer!r}")
        print(f"ok: apdu --json {apdu}: SW {sw}, {len(data) // 2} data bytes, as pyscard got them")

    # A status word other than the one asked for: the card's answer, so exit 1 (card).
    refused = [(apdu, sw) for apdu, (_, sw) in zip(apdus, answers) if sw != "9000"]
    if not refused:
        fail("give at least one APDU the card refuses (an SW other than 9000)")
    apdu, sw = refused[0]
    expected = cardctl(binary, reader_name, "apdu", "--expect-sw", "9000", apdu)
    if expected.returncode != 1 or sw not in expected.stderr.replace(" ", ""):
        fail(f"--expect-sw 9000 on {apdu} (card says {sw}): exit {expected.returncode}, {expected.stderr!r}")
    print(f"ok: apdu --expect-sw 9000 {apdu}: exit 1 (card), the card's {sw} named")


def main() -> None:
    mode, binary, reader_name = sys.argv[1], sys.argv[2], sys.argv[3]
    if mode == "present":
        present(binary, reader_name, sys.argv[4:])
    elif mode == "absent":
        wait_until_empty(reader_name)
        expect_category(binary, reader_name, "empty reader")
        expect_category(binary, reader_name + " (unplugged)", "unknown reader")
    elif mode == "no-service":
        expect_category(binary, reader_name, "pcscd not running")
    else:
        fail(f"unknown mode {mode!r}")


if __name__ == "__main__":
    main()
