/// An application (or the PICC level, AID 000000) with its keys, key settings and files.
struct DESFireApplication: Codable, Sendable, Hashable {
    /// Application identifier, 24 bits.
    var aid: UInt32
    /// The key settings byte KS (spec §5.3).
    var keySettings: UInt8
    var keyType: DESFireKeyType
    var keys: [DESFireKeyEntry]
    var isoFileID: UInt16?
    var dfName: [UInt8]?
    /// Files in creation order.
    var files: [DESFireFile]

    /// KS bit 0: the master key can be changed.
    var masterKeyChangeable: Bool { keySettings & 0x01 != 0 }
    /// KS bit 1: listing and GetKeySettings without master key authentication.
    var freeListing: Bool { keySettings & 0x02 != 0 }
    /// KS bit 2: create (and at application level delete) without master key authentication.
    var freeCreateDelete: Bool { keySettings & 0x04 != 0 }
    /// KS bit 3: the key settings can be changed.
    var settingsChangeable: Bool { keySettings & 0x08 != 0 }
    /// KS bits 7…4: which key may change keys (0 master, 1…D that key, E the key itself, F frozen).
    var changeKeyAccess: UInt8 { keySettings >> 4 }

    /// The second GetKeySettings byte: key count with the crypto bits.
    var keyCountByte: UInt8 { UInt8(keys.count) | keyType.rawValue }

    func fileIndex(_ number: UInt8) -> Int? { files.firstIndex { $0.number == number } }

    /// The factory PICC level: DES master key 16×00 version 0, KS 0x0F.
    static let factoryPICC = DESFireApplication(
        aid: 0, keySettings: 0x0F, keyType: .des, keys: [.zero(.des)],
        isoFileID: nil, dfName: nil, files: [])
}
