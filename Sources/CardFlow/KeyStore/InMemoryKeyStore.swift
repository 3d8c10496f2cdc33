/// A ``KeyStore`` that lives in memory only: for tests, and for keys that must not outlive the
/// process.
///
/// ```swift
/// let store = InMemoryKeyStore()
/// try await store.setKey(StoredKey(algorithm: .aes128, bytes: testKey), in: KeySlot(0))
/// let session = SomeAuthenticatingLayer(keys: store)
/// ```
///
/// It checks slots, key lengths and secret names exactly as ``FileKeyStore`` does.
public actor InMemoryKeyStore: KeyStore {
    private var contents = KeyStoreContents()

    /// An empty store.
    public init() {}

    public func key(in slot: KeySlot) -> StoredKey? {
        contents.keys[slot]
    }

    public func setKey(_ key: StoredKey, in slot: KeySlot) {
        contents.keys[slot] = key
    }

    public func deleteKey(in slot: KeySlot) throws(KeyStoreError) {
        try contents.removeKey(in: slot)
    }

    public func secret(named name: String) throws(KeyStoreError) -> SecretBytes? {
        try SecretNameRule.validate(name)
        return contents.secrets[name]
    }

    public func setSecret(_ secret: SecretBytes, named name: String) throws(KeyStoreError) {
        try SecretNameRule.validate(name)
        contents.secrets[name] = secret
    }

    public func deleteSecret(named name: String) throws(KeyStoreError) {
        try SecretNameRule.validate(name)
        try contents.removeSecret(named: name)
    }

    public func listing() -> KeyStoreListing {
        contents.listing
    }
}
