import CardFlow

/// The per-card HMAC keys, kept in a ``/CardFlow/KeyStore`` as secrets named `ton.hmac.<serial number>`,
/// and the "current serial number" that picks the key protected APDUs are signed with (the
/// seed's iOS-keychain store, section 3.3).
///
/// ```swift
/// let keys = TONHmacKeyStore(store: try FileKeyStore())
/// try await keys.createKey(from: activation, serialNumber: serial)   // the seed's createKeyForHmac
/// try await keys.serialNumbers()                                    // [504394802433901126813236]
/// ```
public actor TONHmacKeyStore {
    /// Prefix of the secret names.
    public static let secretPrefix = "ton.hmac."

    public nonisolated let store: any KeyStore
    /// The serial number whose key signs protected APDUs; nil until one is selected.
    public private(set) var currentSerialNumber: TONSerialNumber?

    public init(store: any KeyStore) {
        self.store = store
    }

    static func secretName(_ serial: TONSerialNumber) -> String { secretPrefix + serial.digits }

    /// Derives K from the activation data, stores it under `serialNumber` and makes it current.
    public func createKey(from activation: TONActivationData, serialNumber: TONSerialNumber) async throws(TONError) {
        try await setKey(activation.hmacKey, serialNumber: serialNumber)
    }

    /// Stores `key` under `serialNumber` and makes it current.
    public func setKey(_ key: [UInt8], serialNumber: TONSerialNumber) async throws(TONError) {
        do {
            try await store.setSecret(SecretBytes(key), named: Self.secretName(serialNumber))
        } catch {
            throw .library(code: 60004)
        }
        currentSerialNumber = serialNumber
    }

    /// Makes `serialNumber` current. - Throws: 60000 when there is no key for it.
    public func selectKey(serialNumber: TONSerialNumber) async throws(TONError) {
        guard try await hasKey(serialNumber: serialNumber) else { throw .library(code: 60000) }
        currentSerialNumber = serialNumber
    }

    /// Whether a key is stored for `serialNumber`.
    public func hasKey(serialNumber: TONSerialNumber) async throws(TONError) -> Bool {
        do {
            return try await store.secret(named: Self.secretName(serialNumber)) != nil
        } catch {
            throw .library(code: 60003)
        }
    }

    /// Deletes the key of `serialNumber` (clearing the current serial when it was that one).
    /// - Throws: 60000 when there is none, 60005 when the store fails.
    public func deleteKey(serialNumber: TONSerialNumber) async throws(TONError) {
        guard try await hasKey(serialNumber: serialNumber) else { throw .library(code: 60000) }
        do {
            try await store.deleteSecret(named: Self.secretName(serialNumber))
        } catch {
            throw .library(code: 60005)
        }
        if currentSerialNumber == serialNumber { currentSerialNumber = nil }
    }

    /// The serial numbers that have a key, sorted.
    public func serialNumbers() async throws(TONError) -> [TONSerialNumber] {
        let listing: KeyStoreListing
        do {
            listing = try await store.listing()
        } catch {
            throw .library(code: 60002)
        }
        return listing.secrets.compactMap { summary -> TONSerialNumber? in
            guard summary.name.hasPrefix(Self.secretPrefix) else { return nil }
            return try? TONSerialNumber(String(summary.name.dropFirst(Self.secretPrefix.count)))
        }.sorted()
    }

    /// The key of the current serial number. - Throws: 60001 (none current), 60000 (no key).
    public func currentKey() async throws(TONError) -> [UInt8] {
        guard let serial = currentSerialNumber else { throw .library(code: 60001) }
        return try await key(serialNumber: serial)
    }

    /// The key of `serialNumber`. - Throws: 60000 when there is none.
    public func key(serialNumber: TONSerialNumber) async throws(TONError) -> [UInt8] {
        let secret: SecretBytes?
        do {
            secret = try await store.secret(named: Self.secretName(serialNumber))
        } catch {
            throw .library(code: 60002)
        }
        guard let secret else { throw .library(code: 60000) }
        return secret.bytes
    }
}
