import CardFlow
import Testing

@Suite("Key store values: slots, algorithms, keys, secrets, redaction")
struct KeyStoreValueTests {
    static let aesKey: [UInt8] = Array(0x10...0x1F)

    @Test func slotsAreZeroToFifteen() throws {
        #expect(try KeySlot(0).number == 0)
        #expect(try KeySlot(15).number == 15)
        #expect(KeySlot.all.map(\.number) == Array(0...15))
        for number in [-1, 16, 255, Int.min, Int.max] {
            #expect(throws: KeyStoreError.slotOutOfRange(number)) { try KeySlot(number) }
        }
    }

    @Test func algorithmsHaveTheirKeyLengths() {
        #expect(SymmetricKeyAlgorithm.des.keyLength == 8)
        #expect(SymmetricKeyAlgorithm.twoKey3DES.keyLength == 16)
        #expect(SymmetricKeyAlgorithm.threeKey3DES.keyLength == 24)
        #expect(SymmetricKeyAlgorithm.aes128.keyLength == 16)
    }

    @Test func algorithmsAreFoundByRawValueOrDisplayNameIgnoringCase() {
        #expect(SymmetricKeyAlgorithm(name: "aes128") == .aes128)
        #expect(SymmetricKeyAlgorithm(name: "AES-128") == .aes128)
        #expect(SymmetricKeyAlgorithm(name: "2K3DES") == .twoKey3DES)
        #expect(SymmetricKeyAlgorithm(name: "3k3des") == .threeKey3DES)
        #expect(SymmetricKeyAlgorithm(name: "Des") == .des)
        #expect(SymmetricKeyAlgorithm(name: "3des") == nil)
        #expect(SymmetricKeyAlgorithm(name: "aes256") == nil)
    }

    @Test(arguments: SymmetricKeyAlgorithm.allCases)
    func keysMustHaveTheAlgorithmsLength(_ algorithm: SymmetricKeyAlgorithm) throws {
        let key = try StoredKey(
            algorithm: algorithm, bytes: [UInt8](repeating: 0xA5, count: algorithm.keyLength), version: 7)
        #expect(key.bytes.count == algorithm.keyLength)
        #expect(key.version == 7)
        for wrong in [0, algorithm.keyLength - 1, algorithm.keyLength + 1, 32] {
            #expect(throws: KeyStoreError.wrongKeyLength(algorithm: algorithm, byteCount: wrong)) {
                try StoredKey(algorithm: algorithm, bytes: [UInt8](repeating: 0, count: wrong))
            }
        }
    }

    @Test func keysNeverPrintTheirBytes() throws {
        let key = try StoredKey(algorithm: .aes128, bytes: Self.aesKey, version: 2)
        #expect("\(key)" == "<AES-128 key, version 2>")
        #expect(String(reflecting: key) == "<AES-128 key, version 2>")
        var dumped = ""
        dump(key, to: &dumped)
        for text in [dumped, "\([key])", "\(Optional(key) as Any)"] {
            #expect(!text.contains("16"), "\(text)")
            #expect(!text.uppercased().contains(Self.aesKey.hexString), "\(text)")
            #expect(!text.contains("bytes"), "\(text)")
        }
        #expect(dumped.contains("algorithm: AES-128") && dumped.contains("version: 2"), "\(dumped)")
        let des = try StoredKey(algorithm: .twoKey3DES, bytes: Array(repeating: 0x11, count: 16))
        #expect(des.description == "<2K3DES key, version 0>")
    }

    @Test func secretsNeverPrintTheirBytes() throws {
        let secret = try SecretBytes([0xDE, 0xAD, 0xBE, 0xEF])
        #expect("\(secret)" == "<secret, 4 bytes>")
        #expect(String(reflecting: secret) == "<secret, 4 bytes>")
        var dumped = ""
        dump(secret, to: &dumped)
        for leak in ["DEADBEEF", "DE AD", "222", "173", "190", "239"] {
            #expect(!dumped.uppercased().contains(leak), "\(dumped)")
        }
        #expect(try SecretBytes([1]).description == "<secret, 1 byte>")
        #expect(throws: KeyStoreError.emptySecret) { try SecretBytes([]) }
    }

    @Test func equalityComparesBytes() throws {
        let a = try StoredKey(algorithm: .aes128, bytes: Self.aesKey, version: 1)
        var changed = Self.aesKey
        changed[15] ^= 1
        #expect(a == (try StoredKey(algorithm: .aes128, bytes: Self.aesKey, version: 1)))
        #expect(a != (try StoredKey(algorithm: .aes128, bytes: changed, version: 1)))
        #expect(a != (try StoredKey(algorithm: .aes128, bytes: Self.aesKey, version: 2)))
        #expect(a != (try StoredKey(algorithm: .twoKey3DES, bytes: Self.aesKey, version: 1)))
        #expect(try SecretBytes([1, 2]) == SecretBytes([1, 2]))
        #expect(try SecretBytes([1, 2]) != SecretBytes([1, 2, 3]))
    }

    @Test func listingsDescribeWithoutBytes() throws {
        #expect(
            KeySlotSummary(slot: try KeySlot(3), algorithm: .threeKey3DES, version: 9).description
                == "slot 3: 3K3DES, version 9")
        #expect(SecretSummary(name: "ton.hmac.1", length: 16).description == "ton.hmac.1: 16 bytes")
    }

    @Test(arguments: [
        "", " ", "a b", "tab\tname", "line\nbreak", "é", "name!", "a\\b", String(repeating: "x", count: 129),
    ])
    func invalidSecretNamesAreRefused(_ name: String) async throws {
        let store = InMemoryKeyStore()
        let secret = try SecretBytes([1])
        await #expect(throws: KeyStoreError.invalidSecretName(name)) { try await store.setSecret(secret, named: name) }
        await #expect(throws: KeyStoreError.invalidSecretName(name)) { try await store.secret(named: name) }
        await #expect(throws: KeyStoreError.invalidSecretName(name)) { try await store.deleteSecret(named: name) }
    }

    @Test func validSecretNames() async throws {
        let store = InMemoryKeyStore()
        for name in ["ton.hmac.04A1B2C3", "a", "x-y_z:1@host+2/3", String(repeating: "n", count: 128)] {
            try await store.setSecret(SecretBytes([1, 2]), named: name)
            #expect(try await store.secret(named: name) == SecretBytes([1, 2]))
        }
    }

    @Test func inMemoryStoreRoundTripsAndLists() async throws {
        let store = InMemoryKeyStore()
        #expect(await store.listing().isEmpty)
        let key = try StoredKey(algorithm: .aes128, bytes: Self.aesKey, version: 2)
        try await store.setKey(key, in: KeySlot(5))
        try await store.setKey(StoredKey(algorithm: .des, bytes: Array(repeating: 1, count: 8)), in: KeySlot(1))
        try await store.setSecret(SecretBytes([9, 9, 9]), named: "b")
        try await store.setSecret(SecretBytes([9]), named: "a")
        #expect(try await store.key(in: KeySlot(5)) == key)
        #expect(try await store.key(in: KeySlot(6)) == nil)
        let listing = await store.listing()
        #expect(
            listing.keys == [
                KeySlotSummary(slot: try KeySlot(1), algorithm: .des, version: 0),
                KeySlotSummary(slot: try KeySlot(5), algorithm: .aes128, version: 2),
            ])
        #expect(listing.secrets == [SecretSummary(name: "a", length: 1), SecretSummary(name: "b", length: 3)])
        try await store.deleteKey(in: KeySlot(5))
        await #expect(throws: KeyStoreError.keyNotFound(try KeySlot(5))) { try await store.deleteKey(in: KeySlot(5)) }
        try await store.deleteSecret(named: "a")
        await #expect(throws: KeyStoreError.secretNotFound(name: "a")) { try await store.deleteSecret(named: "a") }
    }

    @Test func errorsSayWhatToDo() {
        #expect(
            KeyStoreError.permissionsTooOpen(path: "/k.json", mode: 0o644).description
                == "key store /k.json is accessible by group or others (mode 0644); run: chmod 600 /k.json")
        #expect(
            KeyStoreError.wrongKeyLength(algorithm: .aes128, byteCount: 15).description
                == "AES-128 keys have 16 bytes, not 15")
        #expect(KeyStoreError.slotOutOfRange(16).description == "key slot 16 is outside 0...15")
    }
}
