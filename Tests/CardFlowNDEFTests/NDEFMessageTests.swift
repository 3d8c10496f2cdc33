import Testing

@testable import CardFlowNDEF

@Suite("NDEF message and record codec")
struct NDEFMessageTests {
    // Published example, ndeflib 0.3.3 package documentation (ndef/__init__.py docstring,
    // https://ndeflib.readthedocs.io): two well-known records "ABC" and "XYZ", the second with ID "0".
    @Test("ndeflib documentation vector: ABC and XYZ records")
    func ndeflibDocumentationVector() throws {
        let octets = bytes("910301414243005903010158595a30ff")
        let message = try NDEFMessage(decoding: octets)
        #expect(
            message.records == [
                NDEFRecord(tnf: .wellKnown, type: Array("ABC".utf8), payload: [0x00]),
                NDEFRecord(tnf: .wellKnown, type: Array("XYZ".utf8), id: Array("0".utf8), payload: [0xFF]),
            ])
        #expect(try message.encoded() == octets)
    }

    // Published example, ndeflib message_decoder docstring (ndef/message.py): three empty records.
    @Test("ndeflib documentation vector: three empty records")
    func threeEmptyRecords() throws {
        let octets = bytes("900000100000500000")
        let message = try NDEFMessage(decoding: octets)
        #expect(message.records == [.empty, .empty, .empty])
        #expect(try message.encoded() == octets)
        #expect(try NDEFMessage([.empty]).encoded() == bytes("D00000"))
    }

    @Test("every encodable TNF round-trips; flags and lengths as the specification says")
    func everyTNF() throws {
        let records = [
            NDEFRecord.empty,
            NDEFRecord(tnf: .wellKnown, type: Array("T".utf8), payload: bytes("02656E6869")),
            NDEFRecord(tnf: .media, type: Array("text/plain".utf8), payload: Array("hi".utf8)),
            NDEFRecord(tnf: .absoluteURI, type: Array("https://example.com/schema".utf8), payload: [1, 2]),
            NDEFRecord(tnf: .external, type: Array("example.com:t".utf8), payload: [3]),
            NDEFRecord(tnf: .unknown, payload: [4, 5, 6]),
        ]
        let encoded = try NDEFMessage(records).encoded()
        #expect(try NDEFMessage(decoding: encoded).records == records)
        // Each record on its own: MB|ME|SR|TNF.
        for record in records {
            let single = try NDEFMessage([record]).encoded()
            #expect(single[0] == 0xD0 | record.tnf.rawValue)
            #expect(try NDEFMessage(decoding: single).records == [record])
        }
        #expect(throws: NDEFEncodingError.typeNameFormatNotEncodable(.unchanged)) {
            try NDEFMessage([NDEFRecord(tnf: .unchanged, payload: [1])]).encoded()
        }
        #expect(throws: NDEFEncodingError.typeNameFormatNotEncodable(.reserved)) {
            try NDEFMessage([NDEFRecord(tnf: .reserved, payload: [1])]).encoded()
        }
        #expect(throws: NDEFEncodingError.fieldsInEmptyRecord) {
            try NDEFMessage([NDEFRecord(tnf: .empty, payload: [1])]).encoded()
        }
        #expect(throws: NDEFEncodingError.typeNotAllowed(.unknown)) {
            try NDEFMessage([NDEFRecord(tnf: .unknown, type: [0x41])]).encoded()
        }
        #expect(throws: NDEFEncodingError.missingType(.media)) { try NDEFMessage([NDEFRecord(tnf: .media)]).encoded() }
        #expect(throws: NDEFEncodingError.noRecords) { try NDEFMessage([]).encoded() }
        #expect(throws: NDEFEncodingError.typeTooLong(256)) {
            try NDEFMessage([NDEFRecord(tnf: .external, type: [UInt8](repeating: 0x61, count: 256))]).encoded()
        }
        #expect(throws: NDEFEncodingError.idTooLong(256)) {
            try NDEFMessage([NDEFRecord(tnf: .unknown, id: [UInt8](repeating: 0x61, count: 256))]).encoded()
        }
    }

    @Test("short record up to 255 payload bytes, long record from 256")
    func shortAndLongRecords() throws {
        let short = NDEFRecord(tnf: .unknown, payload: [UInt8](repeating: 0xAB, count: 255))
        let shortBytes = try NDEFMessage([short]).encoded()
        #expect(Array(shortBytes.prefix(3)) == [0xD5, 0x00, 0xFF])
        #expect(shortBytes.count == 3 + 255)
        let long = NDEFRecord(tnf: .unknown, payload: [UInt8](repeating: 0xAB, count: 256))
        let longBytes = try NDEFMessage([long]).encoded()
        #expect(Array(longBytes.prefix(6)) == [0xC5, 0x00, 0x00, 0x00, 0x01, 0x00])
        #expect(longBytes.count == 6 + 256)
        #expect(try NDEFMessage(decoding: shortBytes).records == [short])
        #expect(try NDEFMessage(decoding: longBytes).records == [long])
        // A long header may also carry a short payload (some writers do): still valid.
        #expect(
            try NDEFMessage(decoding: bytes("C5 00 00000002 AABB")).records == [
                NDEFRecord(tnf: .unknown, payload: [0xAA, 0xBB])
            ])
    }

    @Test("IDs: IL flag and ID_LENGTH, up to 255 bytes")
    func ids() throws {
        let record = NDEFRecord(tnf: .wellKnown, type: [0x55], id: Array("id-1".utf8), payload: bytes("0461"))
        let encoded = try NDEFMessage([record]).encoded()
        #expect(encoded == bytes("D9 01 02 04 55") + Array("id-1".utf8) + bytes("0461"))
        #expect(try NDEFMessage(decoding: encoded).records == [record])
        let longID = NDEFRecord(tnf: .unknown, id: [UInt8](repeating: 7, count: 255), payload: [])
        #expect(try NDEFMessage(decoding: try NDEFMessage([longID]).encoded()).records == [longID])
    }

    @Test("chunked records: hand-made chunks reassemble; encoding with a chunk size round-trips")
    func chunks() throws {
        // MB|CF|SR TNF 2 "text/plain" "He", then TNF 6 chunks "ll" and (ME) "o".
        let octets =
            bytes("B2 0A 02") + Array("text/plain".utf8) + Array("He".utf8)
            + bytes("36 00 02") + Array("ll".utf8) + bytes("56 00 01") + Array("o".utf8)
        let message = try NDEFMessage(decoding: octets)
        #expect(
            message.records == [NDEFRecord(tnf: .media, type: Array("text/plain".utf8), payload: Array("Hello".utf8))])
        #expect(try message.encoded(chunkSize: 2) == octets)
        #expect(try message.encoded() == bytes("D2 0A 05") + Array("text/plain".utf8) + Array("Hello".utf8))

        // The ID stays on the first chunk; a record after a chunked one; long chunks.
        let records = [
            NDEFRecord(
                tnf: .external, type: Array("a.b:c".utf8), id: [9, 9], payload: (0..<700).map { UInt8($0 & 0xFF) }),
            NDEFRecord(tnf: .unknown, payload: [1]),
        ]
        for size in [1, 3, 255, 256, 300, 699, 700, 10_000] {
            let encoded = try NDEFMessage(records).encoded(chunkSize: size)
            #expect(try NDEFMessage(decoding: encoded).records == records, "chunk size \(size)")
        }
        #expect(throws: NDEFEncodingError.invalidChunkSize(0)) { try NDEFMessage(records).encoded(chunkSize: 0) }
    }

    @Test("chunk sequence errors, with offsets")
    func chunkErrors() {
        // Continuation with TNF 2 instead of 6, at byte 5.
        let wrongTNF = bytes("B2 01 01 61 41 52 01 01 61 42")
        #expect(decodingError(wrongTNF) == NDEFDecodingError(offset: 5, record: 1, problem: .chunkNotUnchanged(.media)))
        #expect(decodingError(wrongTNF, .lenient)?.problem == .chunkNotUnchanged(.media))
        // Bytes end inside the chunked record.
        #expect(
            decodingError(bytes("B2 01 01 61 41"))
                == NDEFDecodingError(offset: 0, record: 0, problem: .unterminatedChunkedRecord))
        // ME on a chunk with CF.
        #expect(decodingError(bytes("F2 01 01 61 41 56 00 01 42"))?.problem == .unterminatedChunkedRecord)
        // TNF 6 on its own.
        #expect(
            decodingError(bytes("D6 00 01 41"))
                == NDEFDecodingError(offset: 0, record: 0, problem: .unexpectedUnchanged))
        #expect(decodingError(bytes("D6 00 01 41"), .lenient)?.problem == .unexpectedUnchanged)
        // An ID on a continuation chunk: strict rejects, lenient ignores it.
        let idInChunk = bytes("B2 01 01 61 41 5E 00 01 01 58 42")
        #expect(decodingError(idInChunk) == NDEFDecodingError(offset: 5, record: 1, problem: .idInContinuationChunk))
        #expect(
            (try? NDEFMessage(decoding: idInChunk, mode: .lenient))?.records == [
                NDEFRecord(tnf: .media, type: [0x61], payload: [0x41, 0x42])
            ])
        // A TYPE on a continuation chunk (TYPE_LENGTH at byte 6).
        #expect(
            decodingError(bytes("B2 01 01 61 41 56 01 01 62 42"))
                == NDEFDecodingError(offset: 6, record: 1, problem: .typeNotAllowed(.unchanged)))
        // MB on a continuation chunk.
        #expect(
            decodingError(bytes("B2 01 01 61 41 D6 00 01 42"))
                == NDEFDecodingError(offset: 5, record: 1, problem: .messageBeginInChunk))
    }

    @Test("strict rejects flag and field misuse; lenient accepts it when unambiguous")
    func strictAndLenient() throws {
        let uri = bytes("D1 01 02 55 04 61")
        let record = NDEFRecord(tnf: .wellKnown, type: [0x55], payload: [0x04, 0x61])
        let cases: [(String, [UInt8], NDEFDecodingError, [NDEFRecord])] = [
            ("no MB", bytes("51 01 02 55 04 61"), .init(offset: 0, record: 0, problem: .missingMessageBegin), [record]),
            ("no ME", bytes("91 01 02 55 04 61"), .init(offset: 6, record: nil, problem: .missingMessageEnd), [record]),
            (
                "MB twice", bytes("91 01 02 55 04 61 D1 01 02 55 04 61"),
                .init(offset: 6, record: 1, problem: .unexpectedMessageBegin), [record, record]
            ),
            (
                "trailing bytes", uri + [0x00, 0xFE], .init(offset: 6, record: nil, problem: .trailingBytes(count: 2)),
                [record]
            ),
            (
                "reserved TNF", bytes("D7 00 01 AA"), .init(offset: 0, record: 0, problem: .reservedTypeNameFormat),
                [NDEFRecord(tnf: .reserved, payload: [0xAA])]
            ),
            (
                "empty with payload", bytes("D0 00 01 AA"), .init(offset: 1, record: 0, problem: .fieldsInEmptyRecord),
                [NDEFRecord(tnf: .empty, payload: [0xAA])]
            ),
            (
                "empty with type", bytes("D0 01 00 41"), .init(offset: 1, record: 0, problem: .fieldsInEmptyRecord),
                [NDEFRecord(tnf: .empty, type: [0x41])]
            ),
            // Found by the ndef-message fuzz target: an empty first chunk whose continuation
            // gives the empty record a payload; strict decoding accepted it, encoding refused it.
            (
                "chunked empty", bytes("B0 00 00 56 00 02 74 61"),
                .init(offset: 0, record: 0, problem: .fieldsInEmptyRecord),
                [NDEFRecord(tnf: .empty, payload: [0x74, 0x61])]
            ),
            (
                "IL on empty", bytes("D8 00 00 00"), .init(offset: 0, record: 0, problem: .idLengthInEmptyRecord),
                [.empty]
            ),
            (
                "unknown with type", bytes("D5 01 01 41 AA"),
                .init(offset: 1, record: 0, problem: .typeNotAllowed(.unknown)),
                [NDEFRecord(tnf: .unknown, type: [0x41], payload: [0xAA])]
            ),
            (
                "well-known without type", bytes("D1 00 01 AA"),
                .init(offset: 1, record: 0, problem: .missingType(.wellKnown)),
                [NDEFRecord(tnf: .wellKnown, payload: [0xAA])]
            ),
        ]
        for (name, octets, error, lenient) in cases {
            #expect(decodingError(octets) == error, "\(name)")
            #expect((try? NDEFMessage(decoding: octets, mode: .lenient))?.records == lenient, "\(name)")
        }
        #expect(decodingError([]) == NDEFDecodingError(offset: 0, record: nil, problem: .empty))
        #expect(try NDEFMessage(decoding: [], mode: .lenient).records == [])
    }

    @Test("truncated fields: typed errors name the field and its offset in both modes")
    func truncation() {
        let full = bytes("D9 01 02 01 55 58 04 61") // MB|ME|SR|IL, type U, id X, payload 04 61
        let expected: [(Int, NDEFDecodingError)] = [
            (1, .init(offset: 1, record: 0, problem: .truncated(.typeLength, needed: 1, available: 0))),
            (2, .init(offset: 2, record: 0, problem: .truncated(.payloadLength, needed: 1, available: 0))),
            (3, .init(offset: 3, record: 0, problem: .truncated(.idLength, needed: 1, available: 0))),
            (4, .init(offset: 4, record: 0, problem: .truncated(.type, needed: 1, available: 0))),
            (5, .init(offset: 5, record: 0, problem: .truncated(.id, needed: 1, available: 0))),
            (7, .init(offset: 6, record: 0, problem: .truncated(.payload, needed: 2, available: 1))),
        ]
        for (length, error) in expected {
            #expect(decodingError(Array(full.prefix(length))) == error, "first \(length) bytes")
            #expect(decodingError(Array(full.prefix(length)), .lenient) == error, "first \(length) bytes, lenient")
        }
        // A long record declaring 2^32-1 payload bytes is never trusted beyond the buffer.
        #expect(
            decodingError(bytes("C5 00 FFFFFFFF 01 02"))
                == NDEFDecodingError(
                    offset: 6, record: 0, problem: .truncated(.payload, needed: 0xFFFF_FFFF, available: 2)))
        #expect(
            decodingError(bytes("C5 00 FFFF"))
                == NDEFDecodingError(offset: 2, record: 0, problem: .truncated(.payloadLength, needed: 4, available: 2))
        )
        // Errors in a later record point into it.
        #expect(
            decodingError(bytes("91 01 01 55 00 51 01 05 55 00"))
                == NDEFDecodingError(offset: 9, record: 1, problem: .truncated(.payload, needed: 5, available: 1)))
        #expect(
            String(describing: decodingError(bytes("D1 01 0B 55 02"))!)
                == "byte 4 (record 0): PAYLOAD needs 11 bytes, only 1 left")
    }

    @Test("seeded random bytes and mutated messages never crash either mode")
    func randomGarbage() throws {
        var generator = SeededGenerator(seed: 0x4E44_4546)
        let seed = try NDEFMessage([
            URIRecord("https://www.github.com").record,
            try TextRecord("Grüezi", language: "de-CH", encoding: .utf16).record,
            SmartPosterRecord(uri: URIRecord("tel:+41"), titles: [try TextRecord("Call")], action: .perform, size: 9)
                .record,
            NDEFRecord(tnf: .unknown, id: [1], payload: [UInt8](repeating: 0x55, count: 300)),
        ]).encoded(chunkSize: 100)
        var decoded = 0
        for round in 0..<4000 {
            var octets: [UInt8]
            if round % 2 == 0 {
                octets = (0..<Int.random(in: 0...64, using: &generator)).map { _ in
                    UInt8.random(in: 0...255, using: &generator)
                }
            } else {
                octets = seed
                for _ in 0..<Int.random(in: 1...4, using: &generator) {
                    let index = Int.random(in: 0..<octets.count, using: &generator)
                    octets[index] = UInt8.random(in: 0...255, using: &generator)
                }
                if Bool.random(using: &generator) {
                    octets = Array(octets.prefix(Int.random(in: 0...octets.count, using: &generator)))
                }
            }
            for mode in [NDEFDecodingMode.strict, .lenient] {
                guard let message = try? NDEFMessage(decoding: octets, mode: mode) else { continue }
                decoded += 1
                for record in message.records {
                    _ = try? TextRecord(record, mode: mode)
                    _ = try? URIRecord(record, mode: mode)
                    _ = try? SmartPosterRecord(record, mode: mode)
                    _ = try? MIMERecord(record, mode: mode)
                    _ = try? ExternalTypeRecord(record, mode: mode)
                    _ = try? AndroidApplicationRecord(record, mode: mode)
                }
                // Whatever strict decoding accepts encodes, and decodes back to the same records.
                if mode == .strict { #expect(try NDEFMessage(decoding: message.encoded()).records == message.records) }
            }
        }
        #expect(decoded > 0)
    }

    @Test("a strictly decoded message re-encodes to the same bytes when written unchunked with short records")
    func strictRoundTrip() throws {
        let octets = bytes("D1010B55026769746875622E636F6D")
        #expect(try NDEFMessage(decoding: octets).encoded() == octets)
    }
}
