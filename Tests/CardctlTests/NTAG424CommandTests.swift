import Foundation
import Testing

/// `cardctl ntag424` against the simulated NTAG 424 DNA tag: keys, SUN set-up, a phone's read,
/// and the server-side check of the URL it gives.
@Suite("cardctl ntag424")
struct NTAG424CommandTests {
    static let metaKey = "0102030405060708090A0B0C0D0E0F10"
    static let fileKey = "F0E0D0C0B0A090807060504030201000"

    @Test(
        "change keys, switch SUN on, tap twice: each URL verifies with its counter; forged and bad input have their exit codes"
    )
    func sunFromSetUpToVerification() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { Fixtures.removeDirectory(directory) }
        let reader = "sim:ntag424,state=\(directory.appendingPathComponent("tag.json").path)"
        for (number, key) in [("2", Self.metaKey), ("1", Self.fileKey)] {
            let change = try await CardctlProcess.run([
                "--reader", reader, "ntag424", "change-key", "--change-no", number, "--new-key", key,
            ])
            #expect(change.status == 0, "\(change)")
        }
        let sun = try await CardctlProcess.run([
            "--reader", reader, "ntag424", "sun", "--url", "https://example.org/tap",
        ])
        #expect(sun.status == 0, "\(sun)")

        var urls: [String] = []
        for counter in 1...2 {
            let read = try await CardctlProcess.run(["--reader", reader, "ntag424", "read"])
            #expect(read.status == 0, "\(read)")
            let url = try #require(read.stdoutLines.first)
            #expect(url.hasPrefix("https://example.org/tap?e="), "\(read)")
            urls.append(url)
            let verify = try await CardctlProcess.run([
                "ntag424", "verify", url, "--meta-key", Self.metaKey, "--file-key", Self.fileKey, "--json",
            ])
            #expect(verify.status == 0, "\(verify)")
            #expect(verify.stdout.contains(#""readCounter":\#(counter)"#), "\(verify)")
        }
        #expect(urls[0] != urls[1], "every tap mirrors fresh data")

        let forged = String(urls[0].dropLast()) + (urls[0].hasSuffix("0") ? "1" : "0")
        let refused = try await CardctlProcess.run([
            "ntag424", "verify", forged, "--meta-key", Self.metaKey, "--file-key", Self.fileKey,
        ])
        #expect(refused.status == 1, "\(refused)")
        #expect(refused.stderr.contains("SDMMAC does not verify"), "\(refused)")

        let badKey = try await CardctlProcess.run([
            "ntag424", "verify", urls[0], "--meta-key", "0102", "--file-key", Self.fileKey,
        ])
        #expect(badKey.status == 2, "\(badKey)")
        let noQuery = try await CardctlProcess.run([
            "ntag424", "verify", "https://example.org/tap", "--meta-key", Self.metaKey,
            "--file-key", Self.fileKey,
        ])
        #expect(noQuery.status == 2, "\(noQuery)")

        let info = try await CardctlProcess.run(["--reader", reader, "ntag424", "info", "--json"])
        #expect(info.status == 0, "\(info)")
        #expect(info.stdout.contains(#""sdmReadCounter":2"#), "\(info)")
        let wrongKey = try await CardctlProcess.run(["--reader", reader, "ntag424", "info", "--key", Self.fileKey])
        #expect(wrongKey.status == 1, "\(wrongKey)")
    }

    @Test("provision with five keys and placeholders, then verify-url: fresh, replayed, forged, bad input")
    func provisionThenVerifyURL() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { Fixtures.removeDirectory(directory) }
        let reader = "sim:ntag424,state=\(directory.appendingPathComponent("tag.json").path)"
        let counters = directory.appendingPathComponent("counters.json").path
        let provision = try await CardctlProcess.run([
            "--reader", reader, "ntag424", "provision", "--url", "https://example.com/tap?picc_data={picc}&cmac={mac}",
            "--meta-key", Self.metaKey, "--file-key", Self.fileKey, "--key3", String(repeating: "33", count: 16),
            "--key4", String(repeating: "44", count: 16), "--new-master-key", String(repeating: "55", count: 16),
            "--key-version", "3", "--json",
        ])
        #expect(provision.status == 0, "\(provision)")
        #expect(provision.stdout.contains(#""ok":true"#) && provision.stdout.contains(#""keysChanged":true"#))
        #expect(provision.stdout.contains(#""readCounter":1"#), "\(provision)")
        // Key 0 is the new one now: the factory key is refused.
        let oldKey = try await CardctlProcess.run(["--reader", reader, "ntag424", "info"])
        #expect(oldKey.status == 1, "\(oldKey)")

        let read = try await CardctlProcess.run(["--reader", reader, "ntag424", "read"])
        let url = try #require(read.stdoutLines.first)
        #expect(url.hasPrefix("https://example.com/tap?picc_data="), "\(read)")
        let verify = [
            "ntag424", "verify-url", url, "--meta-key", Self.metaKey, "--file-key", Self.fileKey,
            "--counters", counters, "--json",
        ]
        let fresh = try await CardctlProcess.run(verify)
        #expect(fresh.status == 0, "\(fresh)")
        #expect(fresh.stdout.contains(#""readCounter":2"#) && fresh.stdout.contains(#""replayed":false"#))
        let replayed = try await CardctlProcess.run(verify)
        #expect(replayed.status == 1, "\(replayed)")
        #expect(replayed.stdout.contains(#""replayed":true"#) && replayed.stderr.contains("replayed"), "\(replayed)")

        let forged = String(url.dropLast()) + (url.hasSuffix("0") ? "1" : "0")
        var forgedArguments = verify
        forgedArguments[2] = forged
        let refused = try await CardctlProcess.run(forgedArguments)
        #expect(refused.status == 1 && refused.stderr.contains("SDMMAC does not verify"), "\(refused)")
        var noMAC = verify
        noMAC[2] = "https://example.com/tap?picc_data=00"
        let missing = try await CardctlProcess.run(noMAC)
        #expect(missing.status == 2, "\(missing)")
        try Data("garbage".utf8).write(to: URL(fileURLWithPath: counters))
        let corrupt = try await CardctlProcess.run(verify)
        #expect(corrupt.status == 2 && corrupt.stderr.contains("not a SUN counter file"), "\(corrupt)")
    }
}
