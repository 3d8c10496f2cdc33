import Crypto
import Foundation
import Testing

/// `cardctl desfire … --diversify`: the key given is an AN10922 master key, the card holds the key
/// derived from its UID and the AID.
@Suite("cardctl desfire --diversify")
struct DESFireDiversifyCommandTests {
    static let master = "00112233445566778899AABBCCDDEEFF"
    /// "NXP Abu".
    static let systemIdentifier = "4E585020416275"
    static let text = "PER-CARD KEY"

    static func hexBytes(_ text: String) -> [UInt8] {
        stride(from: 0, to: text.count, by: 2).map {
            let start = text.index(text.startIndex, offsetBy: $0)
            return UInt8(text[start..<text.index(start, offsetBy: 2)], radix: 16)!
        }
    }

    /// The AN10922 key, computed here with swift-crypto's AES-CMAC: `0x01 ‖ M` is longer than one
    /// block (7 + 3 + 7 bytes of M), where AN10922 pads exactly as CMAC does.
    static func derivedKey(uid: String, aidWire: [UInt8]) throws -> String {
        let input = [0x01] + hexBytes(uid) + aidWire + hexBytes(systemIdentifier)
        #expect(input.count > 16)
        var cmac = try AES.CMAC(key: SymmetricKey(data: hexBytes(master)))
        cmac.update(data: input)
        return Data(cmac.finalize()).map { String(format: "%02X", $0) }.joined()
    }

    static func provision(_ reader: String, extra: [String] = []) async throws -> CardctlResult {
        try await CardctlProcess.run(
            [
                "--reader", reader, "desfire", "provision", "--aid", "010203", "--file", "1", "--size", "32",
                "--comm", "enc", "--key", master, "--diversify", "--system-identifier", systemIdentifier,
                "--text", text, "--json",
            ] + extra)
    }

    static func read(_ reader: String, _ options: [String]) async throws -> CardctlResult {
        try await CardctlProcess.run(
            ["--reader", reader, "desfire", "read", "--aid", "010203", "--file", "1"] + options)
    }

    @Test("provision --diversify, then read --diversify; the master key alone is refused")
    func provisionThenRead() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { Fixtures.removeDirectory(directory) }
        let reader = "sim:desfire,state=\(directory.appendingPathComponent("card.json").path)"
        let provision = try await Self.provision(reader)
        #expect(provision.status == 0, "\(provision)")
        let object = try DESFireCommandTests.json(provision.stdout)
        #expect(object["ok"] as? Bool == true, "\(provision)")
        let uid = try #require(object["uid"] as? String)

        let read = try await Self.read(
            reader, ["--key", Self.master, "--diversify", "--system-identifier", Self.systemIdentifier])
        #expect(read.status == 0, "\(read)")
        #expect(read.stdoutLines == [Self.text], "\(read)")

        // The card holds exactly the AN10922 key of its UID and the AID 010203 (wire 03 02 01).
        let derived = try Self.derivedKey(uid: uid, aidWire: [0x03, 0x02, 0x01])
        let withDerived = try await Self.read(reader, ["--key", derived])
        #expect(withDerived.stdoutLines == [Self.text], "\(withDerived)")

        let masterOnly = try await Self.read(reader, ["--key", Self.master])
        #expect(masterOnly.status == 1, "\(masterOnly)")
        #expect(masterOnly.stderr.contains("AUTHENTICATION_ERROR"), "\(masterOnly)")

        // The system identifier is part of the derivation.
        let otherSystem = try await Self.read(reader, ["--key", Self.master, "--diversify"])
        #expect(otherSystem.status == 1, "\(otherSystem)")
        #expect(otherSystem.stderr.contains("AUTHENTICATION_ERROR"), "\(otherSystem)")
    }

    @Test("a random-UID card: provision and read derive from the real UID (GetCardUID under the PICC key)")
    func randomUID() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { Fixtures.removeDirectory(directory) }
        let reader = "sim:desfire,random-uid,state=\(directory.appendingPathComponent("card.json").path)"
        let provision = try await Self.provision(reader)
        #expect(provision.status == 0, "\(provision)")
        let read = try await Self.read(
            reader, ["--key", Self.master, "--diversify", "--system-identifier", Self.systemIdentifier])
        #expect(read.stdoutLines == [Self.text], "\(read)")
    }

    @Test("a card lifted mid-provision resumes with the same derived key")
    func provisionLifted() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { Fixtures.removeDirectory(directory) }
        let state = directory.appendingPathComponent("card.json").path
        let provision = try await Self.provision(
            "sim:desfire,lift-after=11,return-after=300,state=\(state)", extra: ["--wait", "5000"])
        #expect(provision.status == 0, "\(provision)")
        #expect(DESFireCommandTests.eventNames(try DESFireCommandTests.json(provision.stdout)).contains("resumed"))
        let read = try await Self.read(
            "sim:desfire,state=\(state)",
            ["--key", Self.master, "--diversify", "--system-identifier", Self.systemIdentifier])
        #expect(read.stdoutLines == [Self.text], "\(read)")
    }

    @Test("--system-identifier without --diversify, a DES master key, bad hex, the PICC level: usage errors")
    func badInput() async throws {
        let cases: [[String]] = [
            ["read", "--aid", "010203", "--file", "1", "--key", Self.master, "--system-identifier", "01"],
            ["read", "--aid", "010203", "--file", "1", "--key", "0123456789ABCDEF", "--diversify"],
            ["read", "--aid", "010203", "--file", "1", "--diversify"],
            [
                "read", "--aid", "010203", "--file", "1", "--key", Self.master, "--diversify", "--system-identifier",
                "XY",
            ],
            [
                "read", "--aid", "010203", "--file", "1", "--key", Self.master, "--diversify", "--system-identifier",
                String(repeating: "41", count: 22),
            ],
            ["files", "--key", Self.master, "--diversify"],
        ]
        for arguments in cases {
            let result = try await CardctlProcess.run(["--reader", "sim:desfire", "desfire"] + arguments)
            #expect(result.status == 2, "\(arguments): \(result)")
        }
    }
}
