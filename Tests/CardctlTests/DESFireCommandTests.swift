import Foundation
import Testing

/// `cardctl desfire` against the simulated DESFire card (issue 5's done criteria).
@Suite("cardctl desfire")
struct DESFireCommandTests {
    static let key = "00112233445566778899AABBCCDDEEFF"
    static let text = "CARDFLOW TEST DATA"

    static func provisionArguments(_ reader: String, extra: [String] = []) -> [String] {
        ["--reader", reader] + extra + [
            "desfire", "provision", "--aid", "010203", "--file", "1", "--size", "64", "--comm", "enc",
            "--key", key, "--text", text, "--json",
        ]
    }

    static func json(_ text: String) throws -> [String: Any] {
        let line = try #require(CardctlResult.lines(text).last)
        return try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
    }

    static func eventNames(_ object: [String: Any]) -> [String] {
        (object["events"] as? [[String: Any]] ?? []).compactMap { $0["event"] as? String }
    }

    @Test("provision with state=PATH, then read returns the text")
    func provisionThenRead() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { Fixtures.removeDirectory(directory) }
        let reader = "sim:desfire,state=\(directory.appendingPathComponent("card.json").path)"
        let provision = try await CardctlProcess.run(Self.provisionArguments(reader))
        #expect(provision.status == 0, "\(provision)")
        let object = try Self.json(provision.stdout)
        #expect(object["ok"] as? Bool == true, "\(provision)")
        #expect(Self.eventNames(object).filter { $0 == "stepFinished" }.count == 7, "\(provision)")
        #expect(provision.stderr.contains("step 7/7 read back finished"), "\(provision)")

        let read = try await CardctlProcess.run([
            "--reader", reader, "desfire", "read", "--aid", "010203", "--file", "1", "--key", Self.key,
        ])
        #expect(read.status == 0, "\(read)")
        #expect(read.stdoutLines == [Self.text], "\(read)")

        let readJSON = try await CardctlProcess.run([
            "--reader", reader, "desfire", "read", "--aid", "010203", "--file", "1",
            "--key", Self.key, "--json",
        ])
        #expect(try Self.json(readJSON.stdout)["text"] as? String == Self.text, "\(readJSON)")

        let wrongKey = try await CardctlProcess.run([
            "--reader", reader, "desfire", "read", "--aid", "010203", "--file", "1",
            "--key", "FF112233445566778899AABBCCDDEEFF",
        ])
        #expect(wrongKey.status == 1, "\(wrongKey)")
        #expect(wrongKey.stderr.contains("AUTHENTICATION_ERROR"), "\(wrongKey)")

        let noKey = try await CardctlProcess.run([
            "--reader", reader, "desfire", "read", "--aid", "010203", "--file", "1",
        ])
        #expect(noKey.status == 1, "\(noKey)")
    }

    @Test("provision with a card lifted after 6 APDUs: waitingForCard, resumed, success")
    func provisionLifted() async throws {
        let result = try await CardctlProcess.run(
            Self.provisionArguments(
                "sim:desfire,lift-after=6,return-after=300",
                extra: ["--wait", "5000"]))
        #expect(result.status == 0, "\(result)")
        let object = try Self.json(result.stdout)
        let events = Self.eventNames(object)
        #expect(events.contains("waitingForCard"), "\(result)")
        #expect(events.contains("resumed"), "\(result)")
        #expect(object["ok"] as? Bool == true, "\(result)")
    }

    @Test("provision without --wait still waits for a lifted card")
    func provisionLiftedDefaultWait() async throws {
        let result = try await CardctlProcess.run(Self.provisionArguments("sim:desfire,lift-after=6,return-after=300"))
        #expect(result.status == 0, "\(result)")
        #expect(Self.eventNames(try Self.json(result.stdout)).contains("resumed"), "\(result)")
    }

    @Test("provision with a swapped card: wrongCard, failure, the other card not written")
    func provisionSwapped() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { Fixtures.removeDirectory(directory) }
        let state = directory.appendingPathComponent("card.json").path
        let result = try await CardctlProcess.run(
            Self.provisionArguments(
                "sim:desfire,lift-after=6,return-after=100,swap,state=\(state)",
                extra: ["--wait", "800"]))
        #expect(result.status == 1, "\(result)")
        let object = try Self.json(result.stdout)
        #expect(object["ok"] as? Bool == false, "\(result)")
        #expect(Self.eventNames(object).contains("wrongCard"), "\(result)")
        #expect(result.stderr.contains("wrong card"), "\(result)")
        // The card saved is the other one (the last on the reader): it has no application.
        let apps = try await CardctlProcess.run(["--reader", "sim:desfire,state=\(state)", "desfire", "apps", "--json"])
        #expect(apps.status == 0, "\(apps)")
        #expect(try Self.json(apps.stdout)["applications"] as? [String] == [], "\(apps)")
    }

    @Test("the uFR operations one by one, with JSON output")
    func operations() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { Fixtures.removeDirectory(directory) }
        let reader = "sim:desfire,state=\(directory.appendingPathComponent("card.json").path)"
        func run(_ arguments: [String]) async throws -> [String: Any] {
            let result = try await CardctlProcess.run(["--reader", reader, "desfire"] + arguments + ["--json"])
            #expect(result.status == 0, "\(result)")
            return try Self.json(result.stdout)
        }
        let version = try await run(["version"])
        #expect((version["hardware"] as? String)?.hasPrefix("04010101") == true)
        let free = try await run(["free-memory"])
        let before = try #require(free["freeMemory"] as? Int)
        _ = try await run(["format"])
        _ = try await run(["create-app", "--aid", "A1A2A3", "--key-count", "2"])
        #expect(try await run(["apps"])["applications"] as? [String] == ["A1A2A3"])
        _ = try await run([
            "change-key", "--aid", "A1A2A3", "--key", String(repeating: "00", count: 16), "--new-key", Self.key,
            "--new-key-version", "3",
        ])
        _ = try await run([
            "change-key", "--aid", "A1A2A3", "--key", Self.key, "--change-key-no", "1",
            "--new-key-ascii", "Card Master Key!", "--old-key", String(repeating: "00", count: 16),
        ])
        _ = try await run([
            "create-file", "--aid", "A1A2A3", "--key", Self.key, "--file", "2", "--size", "32", "--comm", "mac",
            "--access", "1000",
        ])
        let settings = try await run(["file-settings", "--aid", "A1A2A3", "--key", Self.key, "--file", "2"])
        #expect(
            settings["comm"] as? String == "mac" && settings["size"] as? Int == 32
                && settings["access"] as? String == "1000")
        #expect(try await run(["files", "--aid", "A1A2A3", "--key", Self.key])["files"] as? [Int] == [2])
        _ = try await run(["write", "--aid", "A1A2A3", "--key", Self.key, "--file", "2", "--data", "DEADBEEF"])
        let read = try await run([
            "read", "--aid", "A1A2A3", "--key-ascii", "Card Master Key!", "--key-no", "1", "--file", "2", "--length",
            "4",
        ])
        #expect(read["data"] as? String == "DEADBEEF")
        let uid = try await run(["uid", "--aid", "A1A2A3", "--key", Self.key])
        #expect((uid["uid"] as? String)?.count == 14)
        _ = try await run(["des-to-aes", "--key", Self.key])
        _ = try await run(["format", "--key", Self.key])
        #expect(try await run(["free-memory"])["freeMemory"] as? Int == before)
    }

    @Test("keys from key store slots, like uFR's key index")
    func keySlots() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { Fixtures.removeDirectory(directory) }
        let store = directory.appendingPathComponent("keys.json").path
        let reader = "sim:desfire,state=\(directory.appendingPathComponent("card.json").path)"
        let set = try await CardctlProcess.run(["key", "set", "5", "aes128", Self.key, "--key-store", store])
        #expect(set.status == 0, "\(set)")
        let provision = try await CardctlProcess.run([
            "--reader", reader, "desfire", "provision", "--aid", "010203", "--file", "1",
            "--size", "32", "--comm", "mac", "--key-slot", "5", "--key-store", store,
            "--data", "0102030405",
        ])
        #expect(provision.status == 0, "\(provision)")
        let read = try await CardctlProcess.run([
            "--reader", reader, "desfire", "read", "--aid", "010203", "--file", "1", "--length", "5",
            "--key", Self.key, "--hex",
        ])
        #expect(read.stdoutLines == ["0102030405"], "\(read)")
        let empty = try await CardctlProcess.run([
            "--reader", reader, "desfire", "read", "--aid", "010203", "--file", "1",
            "--key-slot", "6", "--key-store", store,
        ])
        #expect(empty.status == 2, "\(empty)")
    }

    @Test("--auth legacy authenticates with 0A; a 2K3DES application works in MAC mode")
    func legacyAuthentication() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { Fixtures.removeDirectory(directory) }
        let reader = "sim:desfire,state=\(directory.appendingPathComponent("card.json").path)"
        let key3DES = "0123456789ABCDEFFEDCBA9876543210"
        for arguments in [
            ["format", "--auth", "legacy"],
            ["uid", "--auth", "legacy"],
            ["create-app", "--aid", "0A0B0C", "--app-key-type", "2k3des", "--auth", "legacy"],
            [
                "change-key", "--aid", "0A0B0C", "--key", String(repeating: "00", count: 16), "--key-type", "2k3des",
                "--new-key", key3DES, "--new-key-type", "2k3des", "--auth", "legacy",
            ],
            [
                "create-file", "--aid", "0A0B0C", "--key", key3DES, "--key-type", "2k3des", "--auth", "legacy",
                "--file", "3", "--size", "16", "--comm", "mac",
            ],
            [
                "write", "--aid", "0A0B0C", "--key", key3DES, "--key-type", "2k3des", "--auth", "legacy", "--file", "3",
                "--text", "legacy",
            ],
        ] {
            let result = try await CardctlProcess.run(["--reader", reader, "desfire"] + arguments)
            #expect(result.status == 0, "\(result)")
        }
        let read = try await CardctlProcess.run([
            "--reader", reader, "desfire", "read", "--aid", "0A0B0C", "--key", key3DES,
            "--key-type", "2k3des", "--file", "3",
        ])
        #expect(read.stdoutLines == ["legacy"], "\(read)")
        let badAuth = try await CardctlProcess.run(["--reader", reader, "desfire", "uid", "--auth", "bogus"])
        #expect(badAuth.status == 2, "\(badAuth)")
    }

    @Test("bad input is a usage error")
    func badInput() async throws {
        let badAID = try await CardctlProcess.run([
            "--reader", "sim:desfire", "desfire", "read", "--aid", "0102", "--file", "1",
        ])
        #expect(badAID.status == 2, "\(badAID)")
        let badKey = try await CardctlProcess.run([
            "--reader", "sim:desfire", "desfire", "provision", "--aid", "010203", "--file", "1",
            "--size", "64", "--comm", "enc", "--key", "0011", "--text", "x",
        ])
        #expect(badKey.status == 2, "\(badKey)")
        let tooBig = try await CardctlProcess.run([
            "--reader", "sim:desfire", "desfire", "provision", "--aid", "010203", "--file", "1",
            "--size", "4", "--comm", "enc", "--key", Self.key, "--text", "too long",
        ])
        #expect(tooBig.status == 2, "\(tooBig)")
    }
}
