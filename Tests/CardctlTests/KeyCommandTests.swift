import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

@Suite("cardctl key")
struct KeyCommandTests {
    static let aesKey = "00112233445566778899AABBCCDDEEFF"
    static let desKey = "0123456789ABCDEF"
    static let secret = "C0FFEE0102030405"

    /// Runs `cardctl key ARGUMENTS --key-store PATH`.
    static func key(_ arguments: [String], store: String, input: String? = nil) async throws -> CardctlResult {
        try await CardctlProcess.run(["key"] + arguments + ["--key-store", store], input: input)
    }

    static func mode(_ path: String) -> UInt32? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return UInt32(info.st_mode & 0o7777)
    }

    @Test("set, set-secret, list, list --json, delete, delete-secret; key bytes never printed")
    func lifecycle() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { Fixtures.removeDirectory(directory) }
        let store = directory.appendingPathComponent("cardflow/keys.json").path
        var outputs: [CardctlResult] = []

        let setAES = try await Self.key(["set", "3", "aes128", Self.aesKey, "--version", "2"], store: store)
        #expect(setAES.status == 0, "\(setAES)")
        #expect(setAES.stdoutLines == ["slot 3: AES-128, version 2 stored in \(store)"])
        #expect(Self.mode(store) == 0o600)
        let setDES = try await Self.key(["set", "1", "DES", "01 23 45 67 89 ab cd ef"], store: store)
        #expect(setDES.status == 0, "\(setDES)")
        let setSecret = try await Self.key(["set-secret", "ton.hmac.04A1B2C3", Self.secret], store: store)
        #expect(setSecret.status == 0, "\(setSecret)")
        #expect(setSecret.stdoutLines == ["ton.hmac.04A1B2C3: 8 bytes stored in \(store)"])
        outputs += [setAES, setDES, setSecret]

        let list = try await Self.key(["list"], store: store)
        #expect(list.status == 0, "\(list)")
        #expect(
            list.stdoutLines == [
                "key store \(store)",
                "  slot 1: DES, version 0",
                "  slot 3: AES-128, version 2",
                "  secret ton.hmac.04A1B2C3: 8 bytes",
            ])
        let json = try await Self.key(["list", "--json"], store: store)
        #expect(json.status == 0, "\(json)")
        let document = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any]
        #expect(document?["path"] as? String == store)
        let keys = document?["keys"] as? [[String: Any]]
        #expect(keys?.map { $0["slot"] as? Int } == [1, 3])
        #expect(keys?.map { $0["algorithm"] as? String } == ["des", "aes128"])
        #expect(keys?.map { $0["version"] as? Int } == [0, 2])
        #expect(keys?.allSatisfy { Set($0.keys) == ["slot", "algorithm", "version"] } == true)
        let secrets = document?["secrets"] as? [[String: Any]]
        #expect(secrets?.first?["name"] as? String == "ton.hmac.04A1B2C3")
        #expect(secrets?.first?["length"] as? Int == 8)
        // Global --json before the subcommand works too.
        let leading = try await CardctlProcess.run(["--json", "key", "list", "--key-store", store])
        #expect(leading.status == 0 && leading.stdout == json.stdout, "\(leading)")
        outputs += [list, json, leading]

        let deleteKey = try await Self.key(["delete", "3"], store: store)
        #expect(deleteKey.status == 0, "\(deleteKey)")
        let deleteSecret = try await Self.key(["delete-secret", "ton.hmac.04A1B2C3"], store: store)
        #expect(deleteSecret.status == 0, "\(deleteSecret)")
        let after = try await Self.key(["list"], store: store)
        #expect(after.stdoutLines == ["key store \(store)", "  slot 1: DES, version 0"])
        #expect(Self.mode(store) == 0o600)
        outputs += [deleteKey, deleteSecret, after]

        for result in outputs {
            for leak in [Self.aesKey, Self.desKey, Self.secret, "00 11 22 33", "01 23 45 67"] {
                #expect(
                    !result.stdout.uppercased().contains(leak) && !result.stderr.uppercased().contains(leak),
                    "\(result)")
            }
        }
    }

    @Test("HEX - reads the key from stdin")
    func hexFromStandardInput() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { Fixtures.removeDirectory(directory) }
        let store = directory.appendingPathComponent("keys.json").path
        let result = try await Self.key(["set", "0", "2k3des", "-"], store: store, input: Self.aesKey + "\n")
        #expect(result.status == 0, "\(result)")
        let secret = try await Self.key(["set-secret", "s", "-"], store: store, input: "AA BB\n")
        #expect(secret.status == 0, "\(secret)")
        let list = try await Self.key(["list"], store: store)
        #expect(list.stdoutLines.dropFirst() == ["  slot 0: 2K3DES, version 0", "  secret s: 2 bytes"])
    }

    @Test(
        "bad input exits 2 with a message and leaves the store alone",
        arguments: [
            (["set", "16", "aes128", aesKey], "error: key slot 16 is outside 0...15"),
            (["set", "0", "aes128", "0011"], "error: AES-128 keys have 16 bytes, not 2"),
            (["set", "0", "3k3des", aesKey], "error: 3K3DES keys have 24 bytes, not 16"),
            (
                ["set", "0", "aes256", aesKey],
                "error: unknown algorithm 'aes256'; use one of des, 2k3des, 3k3des, aes128"
            ),
            (["set", "0", "des", "0123456789ABCDEX"], "error: invalid character \"X\" at position 16 in hex text"),
            (
                ["set-secret", "bad name", "00"],
                "error: invalid secret name \"bad name\": use 1 to 128 of ASCII letters, digits and . _ - : @ + /"
            ),
            (["delete", "5"], "error: no key in slot 5"),
            (["delete", "99"], "error: key slot 99 is outside 0...15"),
            (["delete-secret", "missing"], "error: no secret named \"missing\""),
        ] as [([String], String)])
    func badInput(_ arguments: [String], message: String) async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { Fixtures.removeDirectory(directory) }
        let store = directory.appendingPathComponent("keys.json").path
        let seed = try await Self.key(["set", "0", "des", Self.desKey], store: store)
        #expect(seed.status == 0, "\(seed)")
        let before = try Data(contentsOf: URL(fileURLWithPath: store))
        let result = try await Self.key(arguments, store: store)
        #expect(result.status == 2, "\(result)")
        #expect(result.stderrLines == [message], "\(result)")
        #expect(result.stdout.isEmpty, "\(result)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: store)) == before)
    }

    @Test("--version out of range is a usage error")
    func versionOutOfRange() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { Fixtures.removeDirectory(directory) }
        let store = directory.appendingPathComponent("keys.json").path
        let result = try await Self.key(["set", "0", "des", Self.desKey, "--version", "256"], store: store)
        #expect(result.status == 2, "\(result)")
        #expect(!FileManager.default.fileExists(atPath: store))
    }

    @Test("a corrupt or too-open key store exits 2 and is not rewritten")
    func unusableStores() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { Fixtures.removeDirectory(directory) }
        let corrupt = directory.appendingPathComponent("corrupt.json").path
        try Data("{ not json".utf8).write(to: URL(fileURLWithPath: corrupt))
        #expect(chmod(corrupt, 0o600) == 0)
        let set = try await Self.key(["set", "0", "des", Self.desKey], store: corrupt)
        #expect(set.status == 2, "\(set)")
        #expect(set.stderrLines == ["error: key store \(corrupt) is corrupt (not valid JSON); it was left unchanged"])
        #expect(try String(contentsOfFile: corrupt, encoding: .utf8) == "{ not json")

        let open = directory.appendingPathComponent("open.json").path
        let seed = try await Self.key(["set", "0", "des", Self.desKey], store: open)
        #expect(seed.status == 0, "\(seed)")
        #expect(chmod(open, 0o644) == 0)
        let list = try await Self.key(["list"], store: open)
        #expect(list.status == 2, "\(list)")
        #expect(
            list.stderrLines == [
                "error: key store \(open) is accessible by group or others (mode 0644); run: chmod 600 \(open)"
            ])
        #expect(Self.mode(open) == 0o644)
    }
}
