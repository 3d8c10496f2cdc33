/// Everything a key store holds, as a value the stores read, change and write back whole.
struct KeyStoreContents: Sendable, Equatable {
    var keys: [KeySlot: StoredKey] = [:]
    var secrets: [String: SecretBytes] = [:]

    var listing: KeyStoreListing {
        KeyStoreListing(
            keys: keys.sorted { $0.key < $1.key }.map { slot, key in
                KeySlotSummary(slot: slot, algorithm: key.algorithm, version: key.version)
            },
            secrets: secrets.sorted { $0.key < $1.key }.map { name, secret in
                SecretSummary(name: name, length: secret.count)
            })
    }

    mutating func removeKey(in slot: KeySlot) throws(KeyStoreError) {
        guard keys.removeValue(forKey: slot) != nil else { throw .keyNotFound(slot) }
    }

    mutating func removeSecret(named name: String) throws(KeyStoreError) {
        guard secrets.removeValue(forKey: name) != nil else { throw .secretNotFound(name: name) }
    }
}
