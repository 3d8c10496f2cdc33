import CardFlow
import CardFlowDESFire
import CardFlowSimulator
import Foundation
import Testing

/// The SUN URL parser against Foundation's `URLComponents`, which nobody here wrote: on seeded
/// random URLs (repeated names, pairs without `=`, empty pairs, `=` inside values, percent escapes,
/// fragments that look like pairs), each field's value is the first value `URLComponents` gives
/// for the first of its names, read as hex; errors follow from that.
@Suite("NTAG 424 SUN URL parser against URLComponents")
struct NTAG424SUNURLParserTests {
    static let names = ["e", "picc_data", "picc", "c", "cmac", "mac", "uid", "ctr", "enc", "v", "E", "cm", ""]

    /// A parse's fields, compared as a whole.
    struct Fields: Equatable {
        var piccData, uid, encFileData: [UInt8]?
        var readCounter: UInt32?
        var mac: [UInt8]

        init(piccData: [UInt8]?, uid: [UInt8]?, encFileData: [UInt8]?, readCounter: UInt32?, mac: [UInt8]) {
            (self.piccData, self.uid, self.encFileData, self.readCounter, self.mac) =
                (piccData, uid, encFileData, readCounter, mac)
        }

        init(_ parsed: NTAG424SUNURLParameters) {
            self.init(
                piccData: parsed.piccData, uid: parsed.uid, encFileData: parsed.encFileData,
                readCounter: parsed.readCounter, mac: parsed.mac)
        }
    }

    /// What the parser must give, from `URLComponents`' query items and the documented rules.
    static func expected(_ url: String) throws -> Result<Fields, NTAG424SUNURLError> {
        let components = try #require(URLComponents(string: url), "\(url)")
        guard let items = components.percentEncodedQueryItems else { return .failure(.noQuery) }
        func value(_ name: String) -> String? { items.first { $0.name == name && $0.value != nil }?.value }
        func field(_ names: [String]) throws(NTAG424SUNURLError) -> [UInt8]? {
            guard let name = names.first(where: { value($0) != nil }), let text = value(name) else { return nil }
            guard let bytes = try? [UInt8](hex: text) else { throw .notHex(parameter: name) }
            return bytes
        }
        return Result { () throws(NTAG424SUNURLError) in
            guard let mac = try field(["c", "cmac", "mac"]) else { throw .missing("SDMMAC (c=, cmac=, mac=)") }
            let piccData = try field(["e", "picc_data", "picc"])
            let uid = try field(["uid"])
            let encFileData = try field(["enc"])
            var readCounter: UInt32?
            if let counter = try field(["ctr"]) {
                guard counter.count == 3 else { throw .notHex(parameter: "ctr") }
                readCounter = UInt32(counter[0]) << 16 | UInt32(counter[1]) << 8 | UInt32(counter[2])
            }
            if piccData == nil, uid == nil { throw .missing("PICCData (e=, picc_data=) or a plain uid=") }
            return Fields(piccData: piccData, uid: uid, encFileData: encFileData, readCounter: readCounter, mac: mac)
        }
    }

    static func randomBytes(_ count: Int, using random: inout SeededRandom) -> [UInt8] {
        (0..<count).map { _ in UInt8.random(in: .min ... .max, using: &random) }
    }

    static func randomValue(using random: inout SeededRandom) -> String {
        switch Int.random(in: 0..<10, using: &random) {
        case 0: return ""
        case 1: return "zz"
        case 2: return "%41%42"
        case 3: return "AB=CD"
        case 4: return "00-11"
        default:
            let count = [3, 7, 8, 16, 5].randomElement(using: &random)!
            return randomBytes(count, using: &random).hexString
        }
    }

    static func randomURL(using random: inout SeededRandom) -> String {
        var pairs: [String] = []
        for _ in 0..<Int.random(in: 0...6, using: &random) {
            let name = names.randomElement(using: &random)!
            switch Int.random(in: 0..<8, using: &random) {
            case 0: pairs.append(name)
            case 1: pairs.append("")
            default: pairs.append(name + "=" + randomValue(using: &random))
            }
        }
        var url = "https://sdm.example/t"
        if Int.random(in: 0..<12, using: &random) != 0 { url += "?" + pairs.joined(separator: "&") }
        if Int.random(in: 0..<4, using: &random) == 0 {
            url += "#c=" + randomBytes(8, using: &random).hexString + "&e=00"
        }
        return url
    }

    @Test("seeded random URLs: every field as URLComponents reads it")
    func randomURLsAgree() throws {
        var random = SeededRandom(seed: 0x5355_4E)
        var parsed = 0
        for _ in 0..<20_000 {
            let url = Self.randomURL(using: &random)
            let actual = Result { () throws(NTAG424SUNURLError) in Fields(try NTAG424SUNURLParameters(url: url)) }
            let wanted = try Self.expected(url)
            switch (actual, wanted) {
            case (.success(let got), .success(let want)):
                #expect(got == want, "\(url)")
                parsed += 1
            case (.failure(let got), .failure(let want)):
                #expect(got == want, "\(url)")
            default:
                Issue.record("\(url): parser \(actual), URLComponents \(wanted)")
            }
        }
        // The generator must reach the success path often enough to mean something.
        #expect(parsed > 500)
    }

    @Test("the fragment is not the query: a MAC after # does not count")
    func fragmentIsNotQuery() throws {
        #expect(throws: NTAG424SUNURLError.missing("SDMMAC (c=, cmac=, mac=)")) {
            try NTAG424SUNURLParameters(url: "https://x.org/t?e=EF963FF7828658A599F3041510671E88#&c=94EED9EE65337086")
        }
        let fields = try NTAG424SUNURLParameters(
            url: "https://x.org/t?e=EF963FF7828658A599F3041510671E88&c=94EED9EE65337086#c=0000000000000000")
        #expect(fields.mac == [0x94, 0xEE, 0xD9, 0xEE, 0x65, 0x33, 0x70, 0x86])
    }

    @Test("non-ASCII text in a URL: delimiters found by byte, hex with Unicode whitespace still read")
    func nonASCII() throws {
        let fields = try NTAG424SUNURLParameters(
            url: "https://bücher.example/é?c=94EE\u{00A0}D9EE65337086&uid=041E3C8A2D6B80")
        #expect(fields.mac == [0x94, 0xEE, 0xD9, 0xEE, 0x65, 0x33, 0x70, 0x86])
        #expect(throws: NTAG424SUNURLError.notHex(parameter: "c")) {
            try NTAG424SUNURLParameters(url: "https://x.org/t?uid=041E3C8A2D6B80&c=94EEé9EE65337086")
        }
    }
}
