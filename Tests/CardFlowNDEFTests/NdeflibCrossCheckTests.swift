import CardFlowProcessTestSupport
import Foundation
import Testing

@testable import CardFlowNDEF

/// Whether the independent Python implementation ndeflib (`pip install ndeflib`) can be imported.
enum Ndeflib {
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
        "ndeflib_crosscheck.py")
    static let isCI = ProcessInfo.processInfo.environment["CI"] == "true"
    static let available: Bool = (try? run(["-c", "import ndef"], input: Data()).status) == 0

    /// Runs `python3 arguments` with `input` on stdin (synchronous: ``available`` is a test
    /// trait's condition).
    static func run(_ arguments: [String], input: Data) throws -> ChildProcess.Result {
        let child = try ChildProcess("/usr/bin/env", ["python3"] + arguments, input: .pipe)
        child.write(input)
        return child.waitUntilExit()
    }
}

/// One record as the cross-check script reads and writes it.
struct CrossCheckRecord: Codable, Equatable {
    var kind: String?
    var tnf: Int?
    var type: String?
    var id: String?
    var payload: String?
    var text: String?
    var language: String?
    var encoding: String?
    var uri: String?
}

struct CrossCheckRequest: Codable {
    var decode: [String]
    var encode: [[CrossCheckRecord]]
}

struct CrossCheckResponse: Codable {
    var decoded: [[CrossCheckRecord]]
    var encoded: [String]
}

@Suite("NDEF cross-check with ndeflib")
struct NdeflibCrossCheckTests {
    /// A generated set of messages: every encodable TNF, IDs, short and long payloads, Text and URI records.
    static func generatedMessages() throws -> [[NDEFRecord]] {
        var generator = SeededGenerator(seed: 2026)
        let words = ["Hello", "Grüezi", "日本語", "😀 emoji", "", "a b c", "Ωmega"]
        func randomBytes(_ count: Int) -> [UInt8] {
            (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }
        }
        var messages: [[NDEFRecord]] = []
        for index in 0..<60 {
            var records: [NDEFRecord] = []
            for _ in 0..<Int.random(in: 1...4, using: &generator) {
                let payloadSize = [0, 1, 17, 255, 256, 300].randomElement(using: &generator)!
                let id = Bool.random(using: &generator) ? randomBytes(Int.random(in: 1...8, using: &generator)) : []
                switch Int.random(in: 0...7, using: &generator) {
                case 0: records.append(.empty)
                case 1:
                    records.append(
                        NDEFRecord(
                            tnf: .wellKnown, type: Array("x\(index)".utf8), id: id, payload: randomBytes(payloadSize)))
                case 2:
                    records.append(
                        NDEFRecord(
                            tnf: .media, type: Array("application/vnd.cardflow-\(index)".utf8), id: id,
                            payload: randomBytes(payloadSize)))
                case 3:
                    records.append(
                        NDEFRecord(
                            tnf: .absoluteURI, type: Array("https://example.com/t/\(index)".utf8), id: id,
                            payload: randomBytes(payloadSize)))
                case 4:
                    records.append(
                        try ExternalTypeRecord(type: "example.com:t\(index)", data: randomBytes(payloadSize), id: id)
                            .record)
                case 5: records.append(NDEFRecord(tnf: .unknown, id: id, payload: randomBytes(payloadSize)))
                case 6:
                    let text = words.randomElement(using: &generator)! + String(index)
                    let encoding: TextRecord.Encoding = Bool.random(using: &generator) ? .utf8 : .utf16
                    records.append(
                        try TextRecord(
                            text, language: ["en", "de-CH", "ja"].randomElement(using: &generator)!, encoding: encoding
                        ).record)
                default:
                    let prefix = URIRecord.prefixes.randomElement(using: &generator)!
                    records.append(URIRecord(prefix + "host\(index)/päth?q=\(index)").record)
                }
            }
            messages.append(records)
        }
        // Every URI prefix, and Text in both encodings, whatever the generator picked.
        messages.append(URIRecord.prefixes.map { URIRecord($0 + "x/ä").record })
        messages.append([
            try TextRecord("Grüße 😀", language: "de", encoding: .utf16).record,
            try TextRecord("Grüße 😀", language: "de").record,
        ])
        return messages
    }

    static func spec(_ record: NDEFRecord) -> CrossCheckRecord {
        CrossCheckRecord(
            tnf: Int(record.tnf.rawValue), type: hex(record.type), id: hex(record.id), payload: hex(record.payload))
    }

    @Test(
        "ndeflib decodes what we encode, and we decode what ndeflib encodes",
        .enabled(
            if: Ndeflib.available || Ndeflib.isCI,
            "ndeflib is not installed (python3 -m pip install ndeflib); CI=true makes this a failure"))
    func crossCheck() throws {
        guard Ndeflib.available else {
            Issue.record("CI=true but python3 cannot import ndef: install ndeflib (Scripts/setup.sh does)")
            return
        }
        let messages = try Self.generatedMessages()
        let ours = try messages.map { try hex(NDEFMessage($0).encoded()) }
        // The same kinds of messages built on the Python side: raw records, and Text/URI records
        // made by ndeflib's own classes.
        var pythonSpecs: [[CrossCheckRecord]] = messages.map { $0.map(Self.spec) }
        pythonSpecs.append([
            CrossCheckRecord(kind: "text", text: "Hello 😀", language: "en", encoding: "UTF-16"),
            CrossCheckRecord(kind: "text", text: "Grüezi", language: "de-CH", encoding: "UTF-8"),
            CrossCheckRecord(kind: "uri", uri: "https://www.github.com"),
            CrossCheckRecord(kind: "uri", uri: "urn:epc:id:sgtin:0614141.107346.2017"),
            CrossCheckRecord(kind: "uri", uri: "geo:47.37,8.54"),
        ])
        let request = CrossCheckRequest(decode: ours, encode: pythonSpecs)
        let result = try Ndeflib.run([Ndeflib.script.path], input: JSONEncoder().encode(request))
        try #require(
            result.status == 0, "ndeflib_crosscheck.py failed: \(String(decoding: result.errors, as: UTF8.self))")
        let response = try JSONDecoder().decode(CrossCheckResponse.self, from: result.output)
        try #require(response.decoded.count == messages.count)
        try #require(response.encoded.count == pythonSpecs.count)

        // Direction 1: ndeflib reads our bytes as the records we meant, Text and URI values included.
        for (records, decoded) in zip(messages, response.decoded) {
            #expect(decoded.count == records.count)
            for (record, theirs) in zip(records, decoded) {
                #expect(theirs.tnf == Int(record.tnf.rawValue))
                #expect(theirs.type == hex(record.type))
                #expect(theirs.id == hex(record.id))
                #expect(theirs.payload == hex(record.payload))
                if let text = try? TextRecord(record) {
                    #expect(theirs.text == text.text)
                    #expect(theirs.language == text.language)
                }
                if let uri = try? URIRecord(record) { #expect(theirs.uri == uri.uri) }
            }
        }
        // Direction 2: we decode ndeflib's bytes (strictly) to the same records; raw records
        // encode byte for byte the same on both sides.
        for (index, (specs, theirHex)) in zip(pythonSpecs, response.encoded).enumerated() {
            let decoded = try NDEFMessage(decoding: bytes(theirHex)).records
            #expect(decoded.count == specs.count)
            if index < messages.count {
                #expect(decoded == messages[index])
                #expect(theirHex == ours[index])
            }
        }
        let typed = try NDEFMessage(decoding: bytes(response.encoded.last!)).records
        #expect(try TextRecord(typed[0]).text == "Hello 😀")
        #expect(try TextRecord(typed[0]).encoding == .utf16)
        #expect(try TextRecord(typed[1]) == TextRecord("Grüezi", language: "de-CH"))
        #expect(
            try typed[2...].map { try URIRecord($0).uri } == [
                "https://www.github.com", "urn:epc:id:sgtin:0614141.107346.2017", "geo:47.37,8.54",
            ])
        #expect(
            try hex(NDEFMessage(Array(typed[1...])).encoded())
                == hex(
                    NDEFMessage(
                        [try TextRecord("Grüezi", language: "de-CH").record]
                            + ["https://www.github.com", "urn:epc:id:sgtin:0614141.107346.2017", "geo:47.37,8.54"].map {
                                URIRecord($0).record
                            }
                    ).encoded()))
    }
}
