import Testing

@testable import CardFlowNDEF

@Suite("NDEF record views: Text, URI, Smart Poster, MIME, external, Android application")
struct WellKnownRecordTests {
    // The cardctl acceptance vector: identifier code 0x02 is "https://www." (NFC Forum URI RTD
    // table, also ndeflib's UriRecord._prefix_strings), so this is https://www.github.com.
    @Test("URI record D1010B55026769746875622E636F6D is https://www.github.com")
    func githubURI() throws {
        let message = try NDEFMessage(decoding: bytes("D1010B55026769746875622E636F6D"))
        #expect(try URIRecord(message.records[0]).uri == "https://www.github.com")
        #expect(
            try NDEFMessage([URIRecord("https://www.github.com").record]).encoded()
                == bytes("D1010B55026769746875622E636F6D"))
    }

    @Test("the prefix table has 36 entries with the specified codes")
    func prefixTable() {
        #expect(URIRecord.prefixes.count == 0x24)
        #expect(URIRecord.prefixes[0x00] == "")
        #expect(URIRecord.prefixes[0x01] == "http://www.")
        #expect(URIRecord.prefixes[0x02] == "https://www.")
        #expect(URIRecord.prefixes[0x03] == "http://")
        #expect(URIRecord.prefixes[0x04] == "https://")
        #expect(URIRecord.prefixes[0x05] == "tel:")
        #expect(URIRecord.prefixes[0x06] == "mailto:")
        #expect(URIRecord.prefixes[0x07] == "ftp://anonymous:anonymous@")
        #expect(URIRecord.prefixes[0x0D] == "ftp://")
        #expect(URIRecord.prefixes[0x1D] == "file://")
        #expect(URIRecord.prefixes[0x1E] == "urn:epc:id:")
        #expect(URIRecord.prefixes[0x22] == "urn:epc:")
        #expect(URIRecord.prefixes[0x23] == "urn:nfc:")
    }

    @Test("every URI prefix round-trips and encoding picks the longest prefix")
    func everyPrefix() throws {
        for (code, prefix) in URIRecord.prefixes.enumerated() {
            let uri = prefix + "example/ä?x=1"
            let record = URIRecord(uri).record
            #expect(record.payload.first == UInt8(code), "\(prefix)")
            #expect(try URIRecord(record).uri == uri)
            let wire = try NDEFMessage([record]).encoded()
            #expect(try URIRecord(NDEFMessage(decoding: wire).records[0]).uri == uri)
        }
        #expect(URIRecord.identifierCode(for: "urn:epc:id:sgtin:1") == 0x1E)
        #expect(URIRecord.identifierCode(for: "urn:epc:x") == 0x22)
        #expect(URIRecord.identifierCode(for: "urn:isbn:1") == 0x13)
        #expect(URIRecord.identifierCode(for: "ftp://anonymous:anonymous@h") == 0x07)
        #expect(URIRecord.identifierCode(for: "ftp://ftp.h") == 0x08)
        #expect(URIRecord.identifierCode(for: "ftp://h") == 0x0D)
        #expect(URIRecord.identifierCode(for: "geo:1,2") == 0x00)
        #expect(URIRecord.identifierCode(for: "HTTPS://x") == 0x00)
    }

    @Test("URI decoding errors: empty payload, undefined code (lenient reads it as 0x00), bad UTF-8")
    func uriErrors() throws {
        let empty = NDEFRecord(wellKnown: "U", payload: [])
        #expect(throws: NDEFDecodingError(offset: 0, record: nil, problem: .payloadTooShort(needed: 1, available: 0))) {
            try URIRecord(empty)
        }
        let undefined = NDEFRecord(wellKnown: "U", payload: [0x24] + Array("x:y".utf8))
        #expect(throws: NDEFDecodingError(offset: 0, record: nil, problem: .undefinedURIPrefix(0x24))) {
            try URIRecord(undefined)
        }
        #expect(try URIRecord(undefined, mode: .lenient).uri == "x:y")
        let badUTF8 = NDEFRecord(wellKnown: "U", payload: [0x04, 0x61, 0xFF])
        #expect(throws: NDEFDecodingError(offset: 1, record: nil, problem: .invalidText(encoding: "UTF-8"))) {
            try URIRecord(badUTF8)
        }
        #expect(try URIRecord(badUTF8, mode: .lenient).uri == "https://a\u{FFFD}")
        #expect(throws: NDEFDecodingError(offset: 0, record: nil, problem: .wrongRecordType(expected: "URI (U)"))) {
            try URIRecord(NDEFRecord(wellKnown: "T", payload: [0]))
        }
    }

    // Reference bytes produced by the independent ndeflib 0.3.3 (PyPI):
    // b''.join(ndef.message_encoder([ndef.TextRecord('Hello', 'en')])).hex().
    @Test("Text UTF-8 with language")
    func textUTF8() throws {
        let text = try TextRecord("Hello", language: "en")
        #expect(try NDEFMessage([text.record]).encoded() == bytes("d101085402656e48656c6c6f"))
        let decoded = try TextRecord(NDEFMessage(decoding: bytes("d101085402656e48656c6c6f")).records[0])
        #expect(decoded == text)
        let swiss = try TextRecord("Grüezi 👋", language: "de-CH")
        #expect(try TextRecord(swiss.record) == swiss)
        #expect(swiss.record.payload[0] == 5)
        #expect(throws: NDEFEncodingError.invalidLanguageCode(String(repeating: "a", count: 64))) {
            try TextRecord("x", language: String(repeating: "a", count: 64))
        }
        #expect(try TextRecord("x", language: String(repeating: "a", count: 63)).record.payload[0] == 63)
    }

    @Test("Text UTF-16: with BOM big- and little-endian, without BOM big-endian")
    func textUTF16() throws {
        let text = try TextRecord("Hé😀", language: "fr", encoding: .utf16)
        let payload = text.record.payload
        #expect(payload[0] == 0x82)
        #expect(Array(payload[3..<5]) == [0xFE, 0xFF])
        #expect(try TextRecord(text.record) == text)
        // ndeflib's TextRecord('Hello', 'en', 'UTF-16') (little-endian with BOM FF FE):
        let ndeflib = try NDEFMessage(decoding: bytes("d1010f5482656efffe480065006c006c006f00")).records[0]
        #expect(try TextRecord(ndeflib).text == "Hello")
        #expect(try TextRecord(ndeflib).encoding == .utf16)
        let noBOM = NDEFRecord(wellKnown: "T", payload: bytes("82 656E 0048 0069"))
        #expect(try TextRecord(noBOM).text == "Hi")
        let odd = NDEFRecord(wellKnown: "T", payload: bytes("82 656E 0048 00"))
        #expect(throws: NDEFDecodingError(offset: 3, record: nil, problem: .invalidText(encoding: "UTF-16"))) {
            try TextRecord(odd)
        }
        let loneSurrogate = NDEFRecord(wellKnown: "T", payload: bytes("80 D800"))
        #expect(throws: NDEFDecodingError(offset: 1, record: nil, problem: .invalidText(encoding: "UTF-16"))) {
            try TextRecord(loneSurrogate)
        }
        #expect(try TextRecord(loneSurrogate, mode: .lenient).text == "\u{FFFD}")
    }

    @Test("Text errors: language longer than the payload, reserved bit 6, bad UTF-8")
    func textErrors() throws {
        #expect(throws: NDEFDecodingError(offset: 0, record: nil, problem: .payloadTooShort(needed: 1, available: 0))) {
            try TextRecord(NDEFRecord(wellKnown: "T", payload: []))
        }
        #expect(throws: NDEFDecodingError(offset: 1, record: nil, problem: .payloadTooShort(needed: 5, available: 2))) {
            try TextRecord(NDEFRecord(wellKnown: "T", payload: bytes("05 656E")))
        }
        let reserved = NDEFRecord(wellKnown: "T", payload: bytes("42 656E 41"))
        #expect(throws: NDEFDecodingError(offset: 0, record: nil, problem: .reservedBits(mask: 0x40))) {
            try TextRecord(reserved)
        }
        #expect(try TextRecord(reserved, mode: .lenient).text == "A")
        let badUTF8 = NDEFRecord(wellKnown: "T", payload: bytes("02 656E 41 C3"))
        #expect(throws: NDEFDecodingError(offset: 3, record: nil, problem: .invalidText(encoding: "UTF-8"))) {
            try TextRecord(badUTF8)
        }
        #expect(try TextRecord(NDEFRecord(wellKnown: "T", payload: [0x00])).text == "")
    }

    // Reference bytes produced by ndeflib 0.3.3 (PyPI): the message of
    // ndef.SmartposterRecord('https://nfc-forum.org', 'NFC Forum', action='exec').
    @Test("Smart Poster: ndeflib vector, nesting, size, type, icons, other records")
    func smartPoster() throws {
        let vector = bytes(
            "d10229537091010e55046e66632d666f72756d2e6f726711010c5402656e4e464320466f72756d51030161637400")
        let poster = SmartPosterRecord(
            uri: URIRecord("https://nfc-forum.org"), titles: [try TextRecord("NFC Forum")], action: .perform)
        #expect(try NDEFMessage([try poster.validatedRecord()]).encoded() == vector)
        let decoded = try SmartPosterRecord(NDEFMessage(decoding: vector).records[0])
        #expect(decoded == poster)
        #expect(decoded.title(language: "EN") == "NFC Forum")

        let icon = NDEFRecord(tnf: .media, type: Array("image/png".utf8), payload: [0x89, 0x50])
        let other = NDEFRecord(tnf: .external, type: Array("example.com:x".utf8), payload: [1])
        let full = SmartPosterRecord(
            uri: URIRecord("tel:+41441234567"),
            titles: [
                try TextRecord("Anrufen", language: "de"), try TextRecord("Call", language: "en", encoding: .utf16),
            ],
            action: .save, size: 0x0102_0304, mediaType: "text/vcard", icons: [icon], otherRecords: [other], id: [7])
        let wire = try NDEFMessage([full.record, TextRecord("after").record]).encoded(chunkSize: 16)
        let message = try NDEFMessage(decoding: wire)
        #expect(try SmartPosterRecord(message.records[0]) == full)
        #expect(message.records[0].id == [7])
        #expect(full.nestedRecords.map(\.typeString) == ["U", "T", "T", "act", "s", "t", "image/png", "example.com:x"])
        #expect(full.nestedRecords[4].payload == [1, 2, 3, 4])
    }

    @Test("Smart Poster errors: no URI, two URIs, wrong act length, nested message errors")
    func smartPosterErrors() throws {
        let noURI = NDEFRecord(wellKnown: "Sp", payload: try NDEFMessage([TextRecord("t").record]).encoded())
        #expect(throws: NDEFDecodingError(offset: 0, record: nil, problem: .smartPosterURICount(0))) {
            try SmartPosterRecord(noURI)
        }
        let two = NDEFRecord(
            wellKnown: "Sp", payload: try NDEFMessage([URIRecord("a:").record, URIRecord("b:").record]).encoded())
        #expect(throws: NDEFDecodingError(offset: 0, record: nil, problem: .smartPosterURICount(2))) {
            try SmartPosterRecord(two)
        }
        #expect(try SmartPosterRecord(two, mode: .lenient).uri.uri == "a:")
        let act = NDEFRecord(
            wellKnown: "Sp",
            payload: try NDEFMessage([URIRecord("a:").record, NDEFRecord(wellKnown: "act", payload: [0, 0])]).encoded())
        #expect(
            throws: NDEFDecodingError(offset: 0, record: nil, problem: .smartPosterFieldLength(name: "act", length: 2))
        ) { try SmartPosterRecord(act) }
        let truncated = NDEFRecord(wellKnown: "Sp", payload: bytes("D1 01 05 55 00"))
        #expect(throws: NDEFDecodingError(offset: 4, record: 0, problem: .truncated(.payload, needed: 5, available: 1)))
        { try SmartPosterRecord(truncated) }
    }

    @Test("MIME, external type and Android Application records")
    func mimeExternalAndroid() throws {
        let mime = try MIMERecord(mediaType: "text/plain", data: Array("hi".utf8), id: [1])
        #expect(
            mime.record == NDEFRecord(tnf: .media, type: Array("text/plain".utf8), id: [1], payload: Array("hi".utf8)))
        #expect(try MIMERecord(mime.record) == mime)
        #expect(throws: NDEFEncodingError.invalidTypeName("text plain")) {
            try MIMERecord(mediaType: "text plain", data: [])
        }
        #expect(
            throws: NDEFDecodingError(
                offset: 0, record: nil, problem: .wrongRecordType(expected: "media-type with a type/subtype TYPE"))
        ) {
            try MIMERecord(NDEFRecord(tnf: .media, type: Array("plain".utf8)))
        }
        #expect(try MIMERecord(NDEFRecord(tnf: .media, type: Array("plain".utf8)), mode: .lenient).mediaType == "plain")

        let external = try ExternalTypeRecord(type: "example.com:sensor", data: [1, 2])
        #expect(external.domain == "example.com")
        #expect(external.name == "sensor")
        #expect(external.record.tnf == .external)
        #expect(try ExternalTypeRecord(external.record) == external)
        #expect(throws: NDEFEncodingError.invalidTypeName("nocolon")) {
            try ExternalTypeRecord(type: "nocolon", data: [])
        }

        let aar = AndroidApplicationRecord(packageName: "com.example.app")
        let encoded = try NDEFMessage([aar.record]).encoded()
        #expect(encoded == bytes("D4 0F 0F") + Array("android.com:pkg".utf8) + Array("com.example.app".utf8))
        #expect(try AndroidApplicationRecord(NDEFMessage(decoding: encoded).records[0]) == aar)
        #expect(
            try AndroidApplicationRecord(
                NDEFRecord(tnf: .external, type: Array("Android.com:PKG".utf8), payload: [0x61])
            ).packageName == "a")
        #expect(throws: NDEFDecodingError.self) { try AndroidApplicationRecord(external.record) }
    }

    @Test("seeded random payloads under every view's type never crash; strict-accepted ones re-encode")
    func randomPayloads() throws {
        var generator = SeededGenerator(seed: 0x5445_5854)
        for _ in 0..<3000 {
            let payload = (0..<Int.random(in: 0...40, using: &generator)).map { _ in
                UInt8.random(in: 0...255, using: &generator)
            }
            for mode in [NDEFDecodingMode.strict, .lenient] {
                if let text = try? TextRecord(NDEFRecord(wellKnown: "T", payload: payload), mode: mode), mode == .strict
                {
                    #expect(try TextRecord(text.record) == text)
                }
                if let uri = try? URIRecord(NDEFRecord(wellKnown: "U", payload: payload), mode: mode), mode == .strict {
                    #expect(try URIRecord(uri.record).uri == uri.uri)
                }
                _ = try? SmartPosterRecord(NDEFRecord(wellKnown: "Sp", payload: payload), mode: mode)
                _ = try? SmartPosterRecord(
                    NDEFRecord(wellKnown: "Sp", payload: bytes("91010255 00") + payload), mode: mode)
                _ = try? AndroidApplicationRecord(
                    NDEFRecord(tnf: .external, type: Array("android.com:pkg".utf8), payload: payload), mode: mode)
                _ = try? MIMERecord(NDEFRecord(tnf: .media, type: payload), mode: mode)
                _ = try? ExternalTypeRecord(NDEFRecord(tnf: .external, type: payload), mode: mode)
            }
        }
    }
}
