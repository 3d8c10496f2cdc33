import CardFlow
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A fresh directory per test, removed afterwards.
final class KeyStoreDirectory: Sendable {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory
            .appendingPathComponent("cardflow-keystore-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(at: url)
    }

    func path(_ relative: String = "keys.json") -> String {
        url.appendingPathComponent(relative).path
    }

    /// File names in the directory (hidden ones included).
    func entries(_ relative: String = "") throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: relative.isEmpty ? url.path : path(relative)).sorted()
    }
}

/// Permission bits and inode of `path` (without following a final symbolic link).
func fileStatus(_ path: String) throws -> (mode: UInt32, inode: UInt64) {
    var info = stat()
    guard lstat(path, &info) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
    return (UInt32(info.st_mode & 0o7777), UInt64(info.st_ino))
}

func fileBytes(_ path: String) throws -> [UInt8] {
    Array(try Data(contentsOf: URL(fileURLWithPath: path)))
}

func writeFile(_ path: String, _ text: String, mode: mode_t = 0o600) throws {
    try Data(text.utf8).write(to: URL(fileURLWithPath: path))
    #expect(chmod(path, mode) == 0)
}

@Suite("FileKeyStore: file format, permissions, atomic writes, corruption, concurrency")
struct KeyStoreFileTests {
    static func key(_ algorithm: SymmetricKeyAlgorithm, fill: UInt8 = 0x42, version: UInt8 = 0) throws -> StoredKey {
        try StoredKey(
            algorithm: algorithm, bytes: (0..<algorithm.keyLength).map { fill &+ UInt8($0) }, version: version)
    }

    @Test(arguments: SymmetricKeyAlgorithm.allCases)
    func roundTripsEveryAlgorithmThroughTheFile(_ algorithm: SymmetricKeyAlgorithm) async throws {
        let directory = try KeyStoreDirectory()
        let key = try Self.key(algorithm, version: 0xFE)
        try await FileKeyStore(path: directory.path()).setKey(key, in: KeySlot(15))
        // A new instance reads what the first wrote.
        let reread = FileKeyStore(path: directory.path())
        let stored = try await reread.key(in: KeySlot(15))
        #expect(stored == key)
        #expect(stored?.bytes == key.bytes && stored?.algorithm == algorithm && stored?.version == 0xFE)
        #expect(try await reread.key(in: KeySlot(0)) == nil)
    }

    @Test func roundTripsSecretsAndDeletes() async throws {
        let directory = try KeyStoreDirectory()
        let store = FileKeyStore(path: directory.path())
        let hmac = try SecretBytes(Array(0...31))
        try await store.setSecret(hmac, named: "ton.hmac.04A1B2C3")
        try await store.setSecret(SecretBytes([7]), named: "other")
        #expect(try await FileKeyStore(path: directory.path()).secret(named: "ton.hmac.04A1B2C3") == hmac)
        #expect(try await store.secret(named: "missing") == nil)
        try await store.deleteSecret(named: "other")
        await #expect(throws: KeyStoreError.secretNotFound(name: "other")) {
            try await store.deleteSecret(named: "other")
        }
        try await store.setKey(Self.key(.des), in: KeySlot(2))
        try await store.deleteKey(in: KeySlot(2))
        await #expect(throws: KeyStoreError.keyNotFound(try KeySlot(2))) { try await store.deleteKey(in: KeySlot(2)) }
        let listing = try await store.listing()
        #expect(listing.keys.isEmpty)
        #expect(listing.secrets == [SecretSummary(name: "ton.hmac.04A1B2C3", length: 32)])
    }

    @Test func listingCarriesNoKeyBytes() async throws {
        let directory = try KeyStoreDirectory()
        let store = FileKeyStore(path: directory.path())
        let aes = try Self.key(.aes128, fill: 0xC0, version: 3)
        let secret = try SecretBytes([0xA1, 0xB2, 0xC3, 0xD4, 0xE5])
        try await store.setKey(aes, in: KeySlot(0))
        try await store.setSecret(secret, named: "s")
        let listing = try await store.listing()
        #expect(listing.keys == [KeySlotSummary(slot: try KeySlot(0), algorithm: .aes128, version: 3)])
        #expect(listing.secrets == [SecretSummary(name: "s", length: 5)])
        let encoded = String(decoding: try JSONEncoder().encode(listing), as: UTF8.self)
        var dumped = ""
        dump(listing, to: &dumped)
        for text in [encoded, dumped, "\(listing)"] {
            #expect(!text.uppercased().contains("C0C1C2"), "\(text)")
            #expect(!text.uppercased().contains("A1B2C3"), "\(text)")
            #expect(!text.contains("192"), "\(text)") // 0xC0 in decimal
        }
    }

    @Test func missingFileIsAnEmptyStoreAndReadingDoesNotCreateIt() async throws {
        let directory = try KeyStoreDirectory()
        let store = FileKeyStore(path: directory.path("sub/keys.json"))
        #expect(try await store.listing().isEmpty)
        #expect(try await store.key(in: KeySlot(0)) == nil)
        #expect(try directory.entries().isEmpty)
        // Deleting from a store that does not exist creates nothing either.
        await #expect(throws: KeyStoreError.keyNotFound(try KeySlot(0))) { try await store.deleteKey(in: KeySlot(0)) }
        await #expect(throws: KeyStoreError.secretNotFound(name: "x")) { try await store.deleteSecret(named: "x") }
        #expect(try directory.entries().isEmpty)
    }

    @Test func createsTheFileWithMode0600AndDirectoriesWith0700() async throws {
        let directory = try KeyStoreDirectory()
        let path = directory.path("config/cardflow/keys.json")
        let store = FileKeyStore(path: path)
        try await store.setKey(Self.key(.aes128), in: KeySlot(1))
        #expect(try fileStatus(path).mode == 0o600)
        #expect(try fileStatus(directory.path("config/cardflow")).mode == 0o700)
        #expect(try fileStatus(directory.path("config")).mode == 0o700)
        for index in 0..<5 {
            try await store.setSecret(SecretBytes([UInt8(index)]), named: "n\(index)")
            #expect(try fileStatus(path).mode == 0o600)
        }
        try await store.deleteSecret(named: "n0")
        #expect(try fileStatus(path).mode == 0o600)
    }

    @Test func anOwnerOnlyFileWithFewerBitsIsRewrittenAs0600() async throws {
        let directory = try KeyStoreDirectory()
        let path = directory.path()
        let store = FileKeyStore(path: path)
        try await store.setKey(Self.key(.des), in: KeySlot(0))
        #expect(chmod(path, 0o400) == 0)
        try await store.setKey(Self.key(.des, fill: 1), in: KeySlot(1))
        #expect(try fileStatus(path).mode == 0o600)
    }

    @Test func writesReplaceTheFileAtomicallyAndLeaveNoTemporaryFiles() async throws {
        let directory = try KeyStoreDirectory()
        let path = directory.path()
        let store = FileKeyStore(path: path)
        try await store.setKey(Self.key(.aes128), in: KeySlot(0))
        let before = try fileBytes(path)
        let inodeBefore = try fileStatus(path).inode
        // A hard link keeps the old inode: an in-place write would change it too, a rename does not.
        let oldLink = directory.path("old-link")
        #expect(link(path, oldLink) == 0)
        try await store.setKey(Self.key(.threeKey3DES), in: KeySlot(1))
        #expect(try fileBytes(oldLink) == before)
        #expect(try fileStatus(path).inode != inodeBefore)
        #expect(try fileBytes(path) != before)
        #expect(unlink(oldLink) == 0)
        for slot in 2..<10 { try await store.setKey(Self.key(.des, fill: UInt8(slot)), in: KeySlot(slot)) }
        try await store.deleteKey(in: KeySlot(0))
        #expect(try directory.entries() == ["keys.json"])
    }

    @Test func theFileIsReadableSortedJSON() async throws {
        let directory = try KeyStoreDirectory()
        let path = directory.path()
        let store = FileKeyStore(path: path)
        try await store.setSecret(SecretBytes([0xAB, 0xCD]), named: "z")
        try await store.setKey(StoredKey(algorithm: .aes128, bytes: Array(0...15), version: 2), in: KeySlot(4))
        try await store.setKey(
            StoredKey(algorithm: .des, bytes: Array(repeating: 0xFF, count: 8), version: 0), in: KeySlot(1))
        let json = try JSONSerialization.jsonObject(with: Data(try fileBytes(path))) as? [String: Any]
        #expect(json?["format"] as? Int == 1)
        let keys = json?["keys"] as? [[String: Any]]
        #expect(keys?.map { $0["slot"] as? Int } == [1, 4])
        #expect(keys?[1]["algorithm"] as? String == "aes128")
        #expect(keys?[1]["key"] as? String == "000102030405060708090A0B0C0D0E0F")
        #expect(keys?[1]["version"] as? Int == 2)
        let secrets = json?["secrets"] as? [[String: Any]]
        #expect(secrets?.first?["name"] as? String == "z")
        #expect(secrets?.first?["value"] as? String == "ABCD")
    }

    /// Files that are not key stores, and what the error should say about them.
    static let corruptFiles: [(text: String, reason: String)] = [
        ("", "the file is empty"),
        ("  \n", "the file is empty"),
        ("this is not json 00112233", "not valid JSON"),
        (#"{"format": 1, "keys": [], "secrets": []"#, "not valid JSON"),
        (#"[1, 2, 3]"#, "wrong type of value at the top level"),
        (#"{"keys": [], "secrets": []}"#, "\"format\" missing at the top level"),
        (#"{"format": 1, "secrets": []}"#, "\"keys\" missing at the top level"),
        (
            #"{"format": 1, "keys": [{"slot": 0, "algorithm": "aes128", "version": 0}], "secrets": []}"#,
            "\"key\" missing at keys[0]"
        ),
        (
            #"{"format": 1, "keys": [{"slot": 16, "algorithm": "aes128", "version": 0, "key": "00112233445566778899AABBCCDDEEFF"}], "secrets": []}"#,
            "keys[0]: slot 16 is outside 0...15"
        ),
        (
            #"{"format": 1, "keys": [{"slot": 1, "algorithm": "aes256", "version": 0, "key": "00112233445566778899AABBCCDDEEFF"}], "secrets": []}"#,
            "keys[0]: unknown algorithm \"aes256\""
        ),
        (
            #"{"format": 1, "keys": [{"slot": 1, "algorithm": "aes128", "version": 0, "key": "00112233445566778899AABBCCDDEE"}], "secrets": []}"#,
            "keys[0]: AES-128 key has 15 bytes, not 16"
        ),
        (
            #"{"format": 1, "keys": [{"slot": 1, "algorithm": "des", "version": 0, "key": "00112233445566ZZ"}], "secrets": []}"#,
            "keys[0]: key is not hex"
        ),
        (
            #"{"format": 1, "keys": [{"slot": 1, "algorithm": "des", "version": 300, "key": "0011223344556677"}], "secrets": []}"#,
            "keys[0]: key version 300 is outside 0...255"
        ),
        (
            #"{"format": 1, "keys": [{"slot": 1, "algorithm": "des", "version": 0, "key": "0011223344556677"}, {"slot": 1, "algorithm": "des", "version": 0, "key": "0011223344556677"}], "secrets": []}"#,
            "keys[1]: slot 1 appears twice"
        ),
        (
            #"{"format": 1, "keys": [], "secrets": [{"name": "bad name", "value": "00"}]}"#,
            "secrets[0]: invalid secret name"
        ),
        (#"{"format": 1, "keys": [], "secrets": [{"name": "a", "value": ""}]}"#, "secrets[0]: value is not hex"),
        (#"{"format": 0, "keys": [], "secrets": []}"#, "unknown format 0"),
    ]

    @Test(arguments: corruptFiles.indices)
    func corruptFilesGiveATypedErrorAndAreNeverOverwritten(_ index: Int) async throws {
        let (text, reason) = Self.corruptFiles[index]
        let directory = try KeyStoreDirectory()
        let path = directory.path()
        try writeFile(path, text)
        let before = try fileBytes(path)
        let store = FileKeyStore(path: path)
        let expected = KeyStoreError.corruptFile(path: path, reason: reason)
        await #expect(throws: expected) { try await store.listing() }
        await #expect(throws: expected) { try await store.key(in: KeySlot(0)) }
        await #expect(throws: expected) { try await store.secret(named: "a") }
        await #expect(throws: expected) { try await store.setKey(Self.key(.aes128), in: KeySlot(0)) }
        await #expect(throws: expected) { try await store.deleteKey(in: KeySlot(1)) }
        await #expect(throws: expected) { try await store.setSecret(SecretBytes([1]), named: "a") }
        await #expect(throws: expected) { try await store.deleteSecret(named: "a") }
        #expect(try fileBytes(path) == before)
        #expect(try fileStatus(path).mode == 0o600)
        #expect(try directory.entries() == ["keys.json"])
        #expect(expected.description.hasSuffix("it was left unchanged"))
    }

    @Test func aNewerFormatIsReportedAsSuch() async throws {
        let directory = try KeyStoreDirectory()
        let path = directory.path()
        try writeFile(path, #"{"format": 2, "slots": {}}"#)
        let before = try fileBytes(path)
        let store = FileKeyStore(path: path)
        await #expect(throws: KeyStoreError.unsupportedFormatVersion(path: path, version: 2)) {
            try await store.listing()
        }
        await #expect(throws: KeyStoreError.unsupportedFormatVersion(path: path, version: 2)) {
            try await store.setSecret(SecretBytes([1]), named: "a")
        }
        #expect(try fileBytes(path) == before)
    }

    @Test func corruptionReasonsNeverQuoteKeyMaterial() async throws {
        let directory = try KeyStoreDirectory()
        let path = directory.path()
        // A syntax error right inside a key: the reason must not echo the text around it.
        try writeFile(
            path, #"{"format": 1, "keys": [{"slot": 1, "algorithm": "des", "version": 0, "key": "DEADBEEFCAFEF00D}]"#)
        do {
            _ = try await FileKeyStore(path: path).listing()
            Issue.record("expected an error")
        } catch {
            #expect(!error.description.contains("DEADBEEF") && !error.description.contains("CAFE"), "\(error)")
            guard case .corruptFile = error else { Issue.record("expected corruptFile, got \(error)"); return }
        }
    }

    @Test(arguments: [0o644, 0o640, 0o604, 0o660, 0o606, 0o610, 0o601, 0o666, 0o700 | 0o044] as [mode_t])
    func filesOthersCanAccessAreRefusedAndLeftAlone(_ mode: mode_t) async throws {
        let directory = try KeyStoreDirectory()
        let path = directory.path()
        let store = FileKeyStore(path: path)
        try await store.setKey(Self.key(.aes128), in: KeySlot(0))
        #expect(chmod(path, mode) == 0)
        let before = try fileBytes(path)
        let expected = KeyStoreError.permissionsTooOpen(path: path, mode: UInt32(mode))
        await #expect(throws: expected) { try await store.listing() }
        await #expect(throws: expected) { try await store.key(in: KeySlot(0)) }
        await #expect(throws: expected) { try await store.setKey(Self.key(.des), in: KeySlot(1)) }
        await #expect(throws: expected) { try await store.deleteKey(in: KeySlot(0)) }
        #expect(try fileBytes(path) == before)
        #expect(try fileStatus(path).mode == UInt32(mode))
        #expect(expected.description.contains("chmod 600 \(path)"))
        // Once fixed, the store works again.
        #expect(chmod(path, 0o600) == 0)
        #expect(try await store.key(in: KeySlot(0)) == Self.key(.aes128))
    }

    @Test func symbolicLinksAndDirectoriesAreNotKeyStores() async throws {
        let directory = try KeyStoreDirectory()
        let target = directory.path("real.json")
        try await FileKeyStore(path: target).setKey(Self.key(.des), in: KeySlot(0))
        let linkPath = directory.path("keys.json")
        #expect(symlink(target, linkPath) == 0)
        let linked = FileKeyStore(path: linkPath)
        await #expect(throws: KeyStoreError.notARegularFile(path: linkPath)) { try await linked.listing() }
        await #expect(throws: KeyStoreError.notARegularFile(path: linkPath)) {
            try await linked.setKey(Self.key(.des), in: KeySlot(1))
        }
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: linkPath) == target)

        let folder = directory.path("folder")
        try FileManager.default.createDirectory(
            atPath: folder, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
        await #expect(throws: KeyStoreError.notARegularFile(path: folder)) {
            try await FileKeyStore(path: folder).listing()
        }
    }

    @Test func aHundredConcurrentSetsAllLand() async throws {
        let directory = try KeyStoreDirectory()
        let path = directory.path()
        let store = FileKeyStore(path: path)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<100 {
                group.addTask {
                    try await store.setSecret(SecretBytes([UInt8(index), 0xEE]), named: "secret.\(index)")
                    if index < 16 {
                        try await store.setKey(
                            Self.key(.aes128, fill: UInt8(index), version: UInt8(index)), in: KeySlot(index))
                    }
                }
            }
            try await group.waitForAll()
        }
        let listing = try await FileKeyStore(path: path).listing()
        #expect(listing.secrets.count == 100)
        #expect(listing.keys.map(\.slot) == Array(0...15))
        for index in 0..<100 {
            #expect(try await store.secret(named: "secret.\(index)") == SecretBytes([UInt8(index), 0xEE]))
        }
        #expect(try directory.entries() == ["keys.json"])
        #expect(try fileStatus(path).mode == 0o600)
    }

    @Test func separateInstancesOnOneFileDoNotLoseUpdates() async throws {
        let directory = try KeyStoreDirectory()
        let path = directory.path()
        let stores = (0..<4).map { _ in FileKeyStore(path: path) }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<100 {
                let store = stores[index % stores.count]
                group.addTask { try await store.setSecret(SecretBytes([UInt8(index)]), named: "n.\(index)") }
            }
            try await group.waitForAll()
        }
        #expect(try await FileKeyStore(path: path).listing().secrets.count == 100)
    }

    @Test func secretNamesWithSlashesRoundTrip() async throws {
        let directory = try KeyStoreDirectory()
        try await FileKeyStore(path: directory.path()).setSecret(SecretBytes([1, 2]), named: "site/app:key@v1+x")
        #expect(
            try await FileKeyStore(path: directory.path()).secret(named: "site/app:key@v1+x") == SecretBytes([1, 2]))
        #expect(try String(decoding: fileBytes(directory.path()), as: UTF8.self).contains("\"site/app:key@v1+x\""))
    }

    @Test func systemErrorsAreTyped() async throws {
        let directory = try KeyStoreDirectory()
        // A regular file where the store's directory should be.
        try writeFile(directory.path("plain"), "x")
        let path = directory.path("plain/keys.json")
        let store = FileKeyStore(path: path)
        await #expect(throws: KeyStoreError.readFailed(path: path, errno: ENOTDIR)) { try await store.listing() }
        await #expect(throws: KeyStoreError.writeFailed(path: path, step: "open directory", errno: ENOTDIR)) {
            try await store.setSecret(SecretBytes([1]), named: "a")
        }
        #expect(
            KeyStoreError.readFailed(path: path, errno: ENOTDIR).description
                == "cannot read key store \(path): Not a directory")
        #expect(try directory.entries() == ["plain"])
    }

    @Test func defaultPathFollowsXDGThenHome() throws {
        #expect(
            try FileKeyStore.defaultPath(environment: ["XDG_CONFIG_HOME": "/x/config", "HOME": "/home/u"])
                == "/x/config/cardflow/keys.json")
        #expect(
            try FileKeyStore.defaultPath(environment: ["XDG_CONFIG_HOME": "/x/config/", "HOME": "/home/u"])
                == "/x/config/cardflow/keys.json")
        #expect(try FileKeyStore.defaultPath(environment: ["HOME": "/home/u"]) == "/home/u/.config/cardflow/keys.json")
        #expect(
            try FileKeyStore.defaultPath(environment: ["XDG_CONFIG_HOME": "", "HOME": "/home/u"])
                == "/home/u/.config/cardflow/keys.json")
        #expect(
            try FileKeyStore.defaultPath(environment: ["XDG_CONFIG_HOME": "relative", "HOME": "/home/u"])
                == "/home/u/.config/cardflow/keys.json")
        #expect(throws: KeyStoreError.noDefaultLocation) { try FileKeyStore.defaultPath(environment: [:]) }
        #expect(throws: KeyStoreError.noDefaultLocation) { try FileKeyStore.defaultPath(environment: ["HOME": "home"]) }
    }
}
