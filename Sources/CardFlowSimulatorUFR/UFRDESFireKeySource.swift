import CardFlowDESFire

/// Where the reader takes a DESFire key from (ufr.md §4 key block K; decisions file item 2): a
/// reader key slot (source byte 1) or the 16-byte key field of the frame (source byte 0), of the
/// type the command's Par0 names.
struct UFRDESFireKeySource: Sendable, Equatable {
    enum Origin: Sendable, Equatable {
        /// A reader key slot, 0–15.
        case slot(Int)
        /// The 16-byte field of the frame (DES: 8 bytes + 8 zeros).
        case provided([UInt8])
    }

    let origin: Origin
    let type: DESFireKeyType

    /// The key: the slot's or the frame's 16 bytes, cut to the type's length (DES: the first 8).
    func key(in keys: SimulatedUFRReaderKeys) throws(DESFireError) -> DESFireKey {
        let field: [UInt8]
        switch origin {
        case .slot(let slot): field = keys.key(inSlot: slot) ?? SimulatedUFRReaderKeys.factoryKey
        case .provided(let bytes): field = bytes
        }
        return try DESFireKey(type: type, bytes: Array(field.prefix(type.keyLength)))
    }

    /// The key type of a uFR KEY_TYPE code: AES 0, DES 2, 2K3DES 3. 3K3DES (1) is not simulated
    /// (its last 8 key bytes would follow the fixed layouts), so it and codes above 3 are nil
    /// (NOT_SUPPORTED_KEY_TYPE).
    static func keyType(code: UInt8) -> DESFireKeyType? {
        switch code {
        case 0: .aes
        case 2: .des
        case 3: .twoKey3DES
        default: nil
        }
    }
}
