import Foundation
import Testing

/// `cardctl ntag …` against simulated NTAG21x / Ultralight EV1 tags, the state kept in a file
/// between runs, on the default simulated reader (an ACR1252U: ACS direct transmit) and on an
/// OMNIKEY 5422 profile (part 3 transparent exchange).
@Suite("cardctl ntag")
struct NTAGCommandTests {
    func json(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    @Test("info, write, read, counter and signature", arguments: ["ntag213", "ntag216", "ultralight-ev1"])
    func basics(kind: String) async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { Fixtures.removeDirectory(directory) }
        let reader = "sim:\(kind),state=\(directory.appendingPathComponent("tag.json").path)"
        let info = try await CardctlProcess.run(["--reader", reader, "--json", "ntag", "info"])
        #expect(info.status == 0, "\(info)")
        let object = try json(info.stdout)
        #expect(object["product"] as? String == (kind == "ultralight-ev1" ? "ultralightEV1MF0UL11" : kind), "\(info)")
        #expect(object["auth0"] as? Int == 255)
        let write = try await CardctlProcess.run([
            "--reader", reader, "ntag", "write", "--page", "4", "--data", "0102030405060708",
        ])
        #expect(write.status == 0, "\(write)")
        let read = try await CardctlProcess.run(["--reader", reader, "ntag", "read", "--page", "4", "--count", "2"])
        #expect(read.stdoutLines == ["0102030405060708"], "\(read)")
        let signature = try await CardctlProcess.run(["--reader", reader, "--json", "ntag", "signature"])
        let signatureObject = try json(signature.stdout)
        #expect((signatureObject["signature"] as? String)?.count == 64 && signatureObject["verified"] as? Bool == false)
        let counter = try await CardctlProcess.run(
            ["--reader", reader, "ntag", "counter"] + (kind == "ultralight-ev1" ? ["--number", "0"] : []))
        // NTAG21x: the NFC counter is off from the factory, READ_CNT is refused (exit 1).
        #expect(counter.status == (kind == "ultralight-ev1" ? 0 : 1), "\(counter)")
    }

    @Test("the password lifecycle: pwd-set, a refused write, pwd-auth with PACK, a write with the password")
    func passwordLifecycle() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { Fixtures.removeDirectory(directory) }
        let profile = Fixtures.readerDump("HID_OMNIKEY_5422.txt").path
        for reader in [
            "sim:ntag215,state=\(directory.appendingPathComponent("a.json").path)",
            "sim:ntag215,profile=\(profile),state=\(directory.appendingPathComponent("b.json").path)",
        ] {
            let set = try await CardctlProcess.run([
                "--reader", reader, "--json", "ntag", "pwd-set", "--new-password", "CAFEF00D", "--new-pack", "BEEF",
                "--auth0", "16",
            ])
            #expect(set.status == 0, "\(set)")
            #expect(try json(set.stdout)["auth0"] as? Int == 16, "\(set)")
            let refused = try await CardctlProcess.run(
                ["--reader", reader, "ntag", "write", "--page", "16", "--data", "01020304"])
            #expect(refused.status == 1, "\(refused)")
            let auth = try await CardctlProcess.run(
                ["--reader", reader, "ntag", "pwd-auth", "--password", "CAFEF00D", "--pack", "BEEF"])
            #expect(auth.status == 0 && auth.stdoutLines == ["BEEF"], "\(auth)")
            let wrongPack = try await CardctlProcess.run(
                ["--reader", reader, "ntag", "pwd-auth", "--password", "CAFEF00D", "--pack", "0000"])
            #expect(wrongPack.status == 1 && wrongPack.stderr.contains("PACK"), "\(wrongPack)")
            let write = try await CardctlProcess.run([
                "--reader", reader, "ntag", "write", "--page", "16", "--data", "01020304", "--password", "CAFEF00D",
            ])
            #expect(write.status == 0, "\(write)")
            let read = try await CardctlProcess.run([
                "--reader", reader, "ntag", "read", "--page", "16", "--count", "1",
            ])
            #expect(read.stdoutLines == ["01020304"], "\(read)")
        }
    }

    @Test("bad arguments are usage errors, before any card I/O")
    func usage() async throws {
        for arguments in [
            ["ntag", "write", "--page", "4", "--data", "010203"], ["ntag", "pwd-auth"],
            ["ntag", "pwd-set", "--new-password", "01", "--new-pack", "0000"],
            ["ntag", "read", "--pack", "0000"],
        ] {
            let result = try await CardctlProcess.run(["--reader", "sim:ntag213"] + arguments)
            #expect(result.status == 2, "\(result)")
        }
    }
}
