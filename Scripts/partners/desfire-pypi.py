#!/usr/bin/python3
"""PyPI `desfire` (a pure-Python DESFire client over pyscard, nobody here wrote it) reads a
DESFire card through PC/SC: the application list right after connecting (a real card is at the
PICC level then), the NFC Forum Type 4 application libfreefare created, its files and their
settings, and the NDEF file's bytes, which must hold the expected NDEF message.

Usage: desfire-pypi.py READER NDEF_HEX
Prints "ok: ..." lines; exits 1 on a mismatch or a DESFire error.
"""
import sys

from smartcard.System import readers
from desfire.pcsc import PCSCDevice
from desfire.protocol import DESFire


def main() -> int:
    name, expected_hex = sys.argv[1], sys.argv[2]
    expected = bytes.fromhex(expected_hex)
    matching = [reader for reader in readers() if str(reader) == name]
    if not matching:
        print(f"FAIL: no reader named {name!r}: {[str(r) for r in readers()]}")
        return 1
    connection = matching[0].createConnection()
    connection.connect()
    # pyscard 2 wraps the PC/SC connection in a decorator; desfire 0.2 wants the connection.
    card = DESFire(PCSCDevice(getattr(connection, "component", connection)))

    applications = card.get_applications()
    print("ok: GetApplicationIDs at the PICC level: " + " ".join(f"{aid:06X}" for aid in applications))
    if len(applications) != 1:
        print("FAIL: expected the one application mifare-desfire-create-ndef made")
        return 1
    card.select_application(applications[0])
    files = sorted(card.get_file_ids())
    print("ok: files " + " ".join(f"{file:02X}" for file in files))
    settings = {file: card.get_file_settings(file) for file in files}
    for file, setting in settings.items():
        print(f"ok: file {file:02X}: {setting['type']}, {setting['communication']}, {setting.get('file_length')} bytes")
    if files != [1, 2]:
        print("FAIL: expected the capability container (1) and the NDEF file (2)")
        return 1
    container = bytes(card.read_data_file(1))
    print("ok: capability container " + container[:15].hex().upper())
    ndef_file = bytes(card.read_data_file(2))
    length = int.from_bytes(ndef_file[:2], "big")
    message = ndef_file[2:2 + length]
    if message != expected:
        print(f"FAIL: the NDEF file holds {message.hex().upper()} (NLEN {length}), expected {expected_hex}")
        return 1
    print(f"ok: NDEF file: NLEN {length}, the message libfreefare wrote")
    return 0


if __name__ == "__main__":
    sys.exit(main())
