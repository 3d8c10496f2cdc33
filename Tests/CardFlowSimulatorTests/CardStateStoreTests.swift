import CardFlowSimulator
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

@Suite("Card state persistence")
struct CardStateStoreTests {
    /// A fresh temporary directory, removed by `body`'s caller afterwards.
    private func withTemporaryDirectory(_ body: (String) throws -> Void) rethrows {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("cardstate-\(UUID().uuidString)")
            .path
        try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try body(directory)
    }

    private func fileBytes(_ path: String) -> [UInt8]? {
        (try? Data(contentsOf: URL(fileURLWithPath: path))).map { [UInt8]($0) }
    }

    private func write(_ text: String, to path: String) {
        #expect(FileManager.default.createFile(atPath: path, contents: Data(text.utf8)))
    }

    /// The typed error `body` throws, or `nil`.
    private func failure(_ body: () throws(CardStateError) -> Void) -> CardStateError? {
        do {
            try body()
            return nil
        } catch {
            return error
        }
    }

    @Test("Save then load returns the same files, UID, technology and options; volatile state is reset")
    func roundTrip() throws {
        try withTemporaryDirectory { directory in
            let store = CardStateStore(path: directory + "/card.json")
            var card = ISO7816Card(
                seed: 99, technology: .isoDepTypeA(ats: [0x05, 0x78, 0x80, 0x70, 0x02]),
                options: ISO7816CardOptions(extendedLength: true, maxResponseLength: 100, strictLe: true))
            card.powerOn()
            #expect(card.process(bytes("00 A4 04 0C 07 A0 00 00 02 47 10 01")) == [0x90, 0x00])
            #expect(card.process(bytes("00 D6 81 00 03 DE AD 01")) == [0x90, 0x00])
            try store.save(card)

            var loaded: ISO7816Card = try store.load()
            #expect(loaded.uid == card.uid)
            #expect(loaded.technology == card.technology)
            #expect(loaded.options == card.options)
            #expect(loaded.fileSystem == card.fileSystem)
            #expect(try store.storedKind() == "iso7816")
            // Not persisted: the selection.
            #expect(loaded.process(bytes("00 B0 00 00 03")) == [0x69, 0x86])
            #expect(loaded.process(bytes("00 A4 04 0C 07 A0 00 00 02 47 10 01")) == [0x90, 0x00])
            #expect(loaded.process(bytes("00 B0 81 00 04")) == bytes("DE AD 01 03 90 00"))

            // Saving again replaces a valid state of the same kind.
            #expect(loaded.process(bytes("00 D6 81 00 01 77")) == [0x90, 0x00])
            try store.save(loaded)
            let again = try store.load(ISO7816Card.self)
            #expect(again.fileSystem.elementaryFile(atPath: [0x3F00, 0x7001, 0x0101])?.content.first == 0x77)
        }
    }

    @Test("State file has mode 0600 and no temporary file is left behind")
    func permissions() throws {
        try withTemporaryDirectory { directory in
            let path = directory + "/card.json"
            let store = CardStateStore(path: path)
            try store.save(ISO7816Card(seed: 1))
            var info = stat()
            #expect(stat(path, &info) == 0)
            #expect(info.st_mode & 0o777 == 0o600)
            try store.save(ISO7816Card(seed: 1))
            #expect(stat(path, &info) == 0)
            #expect(info.st_mode & 0o777 == 0o600)
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory) == ["card.json"])
        }
    }

    @Test("Corrupt file: typed error on load and on save, file untouched")
    func corrupt() {
        withTemporaryDirectory { directory in
            let path = directory + "/card.json"
            let store = CardStateStore(path: path)
            for text in [
                "not json at all", "{\"format\": 1}", "{\"format\": 1, \"kind\": \"iso7816\", \"card\": {}}",
                "{\"format\": 1, \"kind\": \"iso7816\", \"card\": {\"uid\": [1, 2, 3]}}", "",
            ] {
                write(text, to: path)
                let before = fileBytes(path)
                let error = failure { () throws(CardStateError) in _ = try store.load(ISO7816Card.self) }
                if case .corrupt(let errorPath, _)? = error {
                    #expect(errorPath == path)
                } else {
                    Issue.record("expected .corrupt for \(text), got \(String(describing: error))")
                }
                #expect(throws: CardStateError.self) { try store.save(ISO7816Card(seed: 3)) }
                #expect(fileBytes(path) == before)
            }
        }
    }

    @Test("A state with an invalid value inside the card is corrupt")
    func invalidValues() throws {
        try withTemporaryDirectory { directory in
            let path = directory + "/card.json"
            let store = CardStateStore(path: path)
            try store.save(ISO7816Card(seed: 5))
            let good = try #require(fileBytes(path))
            let text = String(decoding: good, as: UTF8.self)
            for (from, to) in [
                ("\"maxResponseLength\" : 256", "\"maxResponseLength\" : 0"),
                ("\"fileID\" : 16128", "\"fileID\" : 16127"), // MF 3F00 -> 3EFF
                ("\"content\" : \"000102", "\"content\" : \"0G0102"),
            ] {
                #expect(text.contains(from), "fixture text changed: \(from)")
                write(text.replacingOccurrences(of: from, with: to), to: path)
                let error = failure { () throws(CardStateError) in _ = try store.load(ISO7816Card.self) }
                if case .corrupt? = error {
                } else {
                    Issue.record("expected .corrupt for \(to), got \(String(describing: error))")
                }
            }
        }
    }

    @Test("Another card kind, an unknown format, a missing file, a directory: typed errors")
    func otherErrors() throws {
        try withTemporaryDirectory { directory in
            let path = directory + "/card.json"
            let store = CardStateStore(path: path)
            #expect(throws: CardStateError.notFound(path: path)) { _ = try store.load(ISO7816Card.self) }
            #expect(!store.exists)

            write("{\"format\": 1, \"kind\": \"desfire\", \"card\": {}}", to: path)
            let before = fileBytes(path)
            #expect(throws: CardStateError.wrongKind(path: path, expected: "iso7816", found: "desfire")) {
                _ = try store.load(ISO7816Card.self)
            }
            #expect(throws: CardStateError.wrongKind(path: path, expected: "iso7816", found: "desfire")) {
                try store.save(ISO7816Card(seed: 1))
            }
            #expect(fileBytes(path) == before)
            #expect(try store.storedKind() == "desfire")

            write("{\"format\": 2, \"kind\": \"iso7816\", \"card\": {}}", to: path)
            #expect(throws: CardStateError.unsupportedFormat(path: path, version: 2)) {
                _ = try store.load(ISO7816Card.self)
            }

            // Replacing a foreign file is explicit.
            try store.remove()
            #expect(!store.exists)
            try store.remove()
            try store.save(ISO7816Card(seed: 1))
            #expect(try store.load(ISO7816Card.self).uid == ISO7816Card.uid(fromSeed: 1))

            let directoryStore = CardStateStore(path: directory)
            let directoryError = failure { () throws(CardStateError) in _ = try directoryStore.load(ISO7816Card.self) }
            if case .unreadable? = directoryError {
            } else {
                Issue.record("expected .unreadable, got \(String(describing: directoryError))")
            }
            let missingParent = CardStateStore(path: directory + "/missing/card.json")
            let writeError = failure { () throws(CardStateError) in try missingParent.save(ISO7816Card(seed: 1)) }
            if case .writeFailed? = writeError {
            } else {
                Issue.record("expected .writeFailed, got \(String(describing: writeError))")
            }
        }
    }

    @Test("An unreadable file is reported as unreadable", .enabled(if: geteuid() != 0, "root can read mode 000 files"))
    func unreadable() throws {
        try withTemporaryDirectory { directory in
            let path = directory + "/card.json"
            let store = CardStateStore(path: path)
            try store.save(ISO7816Card(seed: 1))
            #expect(chmod(path, 0o000) == 0)
            defer { _ = chmod(path, 0o600) }
            let error = failure { () throws(CardStateError) in _ = try store.load(ISO7816Card.self) }
            if case .unreadable? = error {
            } else {
                Issue.record("expected .unreadable, got \(String(describing: error))")
            }
        }
    }
}
