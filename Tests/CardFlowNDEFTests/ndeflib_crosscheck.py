#!/usr/bin/env python3
"""Cross-check for CardFlow's NDEF codec against ndeflib (https://github.com/nfcpy/ndeflib).

Reads a JSON document on stdin:
  {"decode": [HEX, ...],            # messages CardFlow encoded: decode them with ndeflib
   "encode": [[RECORD, ...], ...]}  # messages to encode with ndeflib for CardFlow to decode
where RECORD is {"tnf": N, "type": HEX, "id": HEX, "payload": HEX}, or
{"kind": "text", "text": S, "language": L, "encoding": "UTF-8"|"UTF-16"}, or {"kind": "uri", "uri": S}.
Writes {"decoded": [[RECORD, ...], ...], "encoded": [HEX, ...]} on stdout; decoded records also
carry "text"/"language" (type T) or "uri" (type U) as ndeflib reads them.
"""
import json
import sys

import ndef

PREFIX = {1: "urn:nfc:wkt:", 4: "urn:nfc:ext:"}


def type_string(tnf, type_bytes):
    if tnf == 0:
        return ""
    if tnf == 5:
        return "unknown"
    return PREFIX.get(tnf, "") + type_bytes.decode("ascii")


def raw_record(spec):
    tnf = spec["tnf"]
    return ndef.Record(type_string(tnf, bytes.fromhex(spec["type"])),
                       bytes.fromhex(spec["id"]).decode("latin-1"),
                       bytes.fromhex(spec["payload"]))


def build(spec):
    kind = spec.get("kind")
    if kind == "text":
        return ndef.TextRecord(spec["text"], spec["language"], spec["encoding"])
    if kind == "uri":
        return ndef.UriRecord(spec["uri"])
    return raw_record(spec)


def describe(record):
    tnf, type_bytes = ndef.Record._encode_type(record.type)
    entry = {"tnf": tnf, "type": type_bytes.hex().upper(),
             "id": record.name.encode("latin-1").hex().upper(),
             "payload": bytes(record.data).hex().upper()}
    if tnf == 1 and type_bytes in (b"T", b"U"):
        octets = b"".join(ndef.message_encoder([record]))
        typed = next(ndef.message_decoder(octets))
        if type_bytes == b"T":
            entry["text"] = typed.text
            entry["language"] = typed.language
        else:
            entry["uri"] = typed.iri
    return entry


def main():
    document = json.load(sys.stdin)
    decoded = []
    for text in document.get("decode", []):
        records = ndef.message_decoder(bytes.fromhex(text), errors="strict", known_types={})
        decoded.append([describe(record) for record in records])
    encoded = []
    for message in document.get("encode", []):
        octets = b"".join(ndef.message_encoder([build(spec) for spec in message]))
        encoded.append(octets.hex().upper())
    json.dump({"decoded": decoded, "encoded": encoded}, sys.stdout)


if __name__ == "__main__":
    main()
