import Foundation
import Testing

@testable import cardctl

/// cardctl.json decoded as a Codable value: each kind of bad file is its own typed error that
/// names the file (the process-level tests check the exit status and message).
@Suite("cardctl configuration file")
struct CardctlConfigurationTests {
    private let path = "/home/me/.config/cardflow/cardctl.json"

    private func parse(_ text: String) throws(CardctlConfigurationError) -> CardctlConfiguration {
        try CardctlConfiguration(json: Data(text.utf8), path: path)
    }

    @Test func goodFiles() throws {
        #expect(try parse(#"{"reader": "usb:072F:2200"}"#) == CardctlConfiguration(reader: "usb:072F:2200"))
        #expect(try parse("{}") == CardctlConfiguration())
    }

    @Test func notJSON() {
        for text in ["{not json", ""] {
            let error = #expect(throws: CardctlConfigurationError.self) { try parse(text) }
            guard case .notJSON(let at, _) = error else { Issue.record("\(String(describing: error))"); continue }
            #expect(at == path)
        }
    }

    @Test(arguments: [#"["sim"]"#, "3", #""usb""#])
    func notAnObject(_ text: String) {
        #expect(throws: CardctlConfigurationError.notAnObject(path: path)) { try parse(text) }
    }

    @Test func unknownKeysAreNamed() {
        #expect(throws: CardctlConfigurationError.unknownKey(path: path, key: "raeder")) {
            try parse(#"{"raeder": "sim"}"#)
        }
        // The first unknown key in sorted order, whatever the file's order.
        #expect(throws: CardctlConfigurationError.unknownKey(path: path, key: "a")) {
            try parse(#"{"reader": "usb", "z": 1, "a": 2}"#)
        }
    }

    @Test(arguments: [#"{"reader": 3}"#, #"{"reader": ""}"#, #"{"reader": null}"#, #"{"reader": ["usb"]}"#])
    func badReaderValues(_ text: String) {
        let error = #expect(throws: CardctlConfigurationError.self) { try parse(text) }
        guard case .badValue(let at, let key, _) = error else { Issue.record("\(String(describing: error))"); return }
        #expect(at == path && key == "reader")
    }

    @Test func encodesWhatItDecodes() throws {
        let configuration = CardctlConfiguration(reader: "pcsc:Gemalto")
        let data = try JSONEncoder().encode(configuration)
        #expect(try CardctlConfiguration(json: data, path: path) == configuration)
    }
}
