#!/usr/bin/env python3
"""nfcpy (PyPI) against CardFlow's simulated ACR122U, as Scripts/partners-check.sh runs it under
`cardctl simulate --reader-profile …ACR122U_PICC.txt --card CARD -- python3 THIS …`.

nfcpy drives the reader's PN532 itself over libusb (its acr122 driver: the reader's pseudo-APDUs
in CCID XfrBlocks), senses the tag and reads or writes its NDEF message.

Usage: nfcpy-acr122u.py read TYPE [TEXT...]   the tag is TYPE (Type2Tag, Type4Tag); its NDEF
                                              message holds each TEXT (a text or URI record)
       nfcpy-acr122u.py write TYPE TEXT       writes one text record TEXT, reads it back
Prints what nfcpy found; exits 0 when every expectation holds, 1 otherwise.
"""
import sys

import ndef
import nfc


def records_text(records):
    texts = []
    for record in records:
        if isinstance(record, ndef.TextRecord):
            texts.append(record.text)
        elif isinstance(record, ndef.UriRecord):
            texts.append(record.iri)
        else:
            texts.append(repr(record))
    return texts


def main():
    if len(sys.argv) < 3 or sys.argv[1] not in ("read", "write"):
        print(__doc__, file=sys.stderr)
        return 2
    mode, kind, texts = sys.argv[1], sys.argv[2], sys.argv[3:]
    clf = nfc.ContactlessFrontend("usb:072f:2200")
    try:
        print("device: %s" % clf.device)
        tag = clf.connect(rdwr={"on-connect": lambda tag: False, "iterations": 10, "interval": 0.1})
        if not tag:
            print("no tag found")
            return 1
        print("tag: %s" % tag)
        if not any(cls.__name__ == kind for cls in type(tag).__mro__):
            print("expected a %s" % kind)
            return 1
        if tag.ndef is None:
            print("the tag has no NDEF message")
            return 1
        if mode == "write":
            tag.ndef.records = [ndef.TextRecord(texts[0], "en")]
        found = records_text(tag.ndef.records)
        print("NDEF capacity %d, records: %s" % (tag.ndef.capacity, found))
        missing = [text for text in texts if text not in found]
        if missing:
            print("missing: %s" % missing)
            return 1
        return 0
    finally:
        clf.close()


if __name__ == "__main__":
    sys.exit(main())
