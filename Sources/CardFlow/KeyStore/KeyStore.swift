/// Where CardFlow keeps the keys it authenticates to cards with: 16 symmetric key slots (0...15,
/// like a reader's key slots) and secrets stored under names such as `"ton.hmac.<serial>"`.
///
/// Reads return `nil` for an empty slot or unknown name; deletes of something absent throw.
/// ``listing()`` describes the contents without key bytes, and every key type hides its bytes
/// from `description`, so listings and errors can be printed and logged.
///
/// Secret names are 1 to 128 characters from ASCII letters, digits and `. _ - : @ + /`.
///
/// ```swift
/// let store = try FileKeyStore()                       // ~/.config/cardflow/keys.json
/// let key = try StoredKey(algorithm: .aes128, bytes: keyBytes, version: 1)
/// try await store.setKey(key, in: KeySlot(0))
/// if let stored = try await store.key(in: KeySlot(0)) { … }
/// try await store.setSecret(SecretBytes(hmacKey), named: "ton.hmac.04A1B2C3")
/// print(try await store.listing().keys)                // [slot 0: AES-128, version 1]
/// ```
///
/// Implementations: ``FileKeyStore`` (a JSON file) and ``InMemoryKeyStore`` (tests, ephemeral keys).
public protocol KeyStore: Sendable {
    /// The key in `slot`, or `nil` when the slot is empty.
    func key(in slot: KeySlot) async throws(KeyStoreError) -> StoredKey?

    /// Puts `key` into `slot`, replacing any key there.
    func setKey(_ key: StoredKey, in slot: KeySlot) async throws(KeyStoreError)

    /// Empties `slot`.
    ///
    /// - Throws: ``KeyStoreError/keyNotFound(_:)`` when the slot is already empty.
    func deleteKey(in slot: KeySlot) async throws(KeyStoreError)

    /// The secret called `name`, or `nil` when there is none.
    ///
    /// - Throws: ``KeyStoreError/invalidSecretName(_:)`` for a name that breaks the naming rule.
    func secret(named name: String) async throws(KeyStoreError) -> SecretBytes?

    /// Stores `secret` under `name`, replacing any secret of that name.
    ///
    /// - Throws: ``KeyStoreError/invalidSecretName(_:)`` for a name that breaks the naming rule.
    func setSecret(_ secret: SecretBytes, named name: String) async throws(KeyStoreError)

    /// Removes the secret called `name`.
    ///
    /// - Throws: ``KeyStoreError/secretNotFound(name:)`` when there is none.
    func deleteSecret(named name: String) async throws(KeyStoreError)

    /// The filled slots and the secret names, without key material.
    func listing() async throws(KeyStoreError) -> KeyStoreListing
}
