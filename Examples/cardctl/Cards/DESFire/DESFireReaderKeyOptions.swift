import ArgumentParser
import CardFlowDESFire
import CardFlowUFR

/// `--reader-key N` and `--reader-runs`: on a uFR reader, the operation runs as the reader's own
/// DESFire command (ufr.md §4) instead of CardFlow's secure messaging over APDUs, with the key
/// the command authenticates with taken from the reader's key slot N (the key never crosses the
/// link; store it first with `cardctl ufr key-write`) or, with `--reader-runs` alone, sent in the
/// frame.
struct DESFireReaderKeyOptions: ParsableArguments {
    @Option(
        name: .customLong("reader-key"),
        help: ArgumentHelp(
            "uFR readers: authenticate with the AES key in this reader key slot (0-15) instead of --key/--picc-key; the reader runs the operation.",
            valueName: "N"))
    var slot: Int?

    @Flag(
        name: .customLong("reader-runs"),
        help: "uFR readers: run the operation as the reader's own DESFire command (implied by any --…reader-key).")
    var readerRuns = false

    /// Whether the operation goes to the reader's DESFire commands.
    var isRequested: Bool { slot != nil || readerRuns }

    /// The reader slot key, else `provided` as a key in the frame, else nil.
    func key(orIfGiven provided: DESFireKey?) throws -> UFRDESFireKey? {
        if let slot { return try UFRDESFireKey.readerSlot(slot) }
        return try provided.map(Self.frameKey)
    }

    /// The reader slot key, else `provided` as a key in the frame.
    func key(or provided: DESFireKey) throws -> UFRDESFireKey {
        if let slot { return try UFRDESFireKey.readerSlot(slot) }
        return try Self.frameKey(provided)
    }

    /// A key sent in the frame.
    static func frameKey(_ key: DESFireKey) throws -> UFRDESFireKey {
        try UFRDESFireKey.provided(type: try keyType(key.type), key.bytes)
    }

    static func keyType(_ type: DESFireKeyType) throws -> UFRDESFireKeyType {
        switch type {
        case .aes: return .aes
        case .des: return .des
        case .twoKey3DES: return .twoKeyTripleDES
        case .threeKey3DES:
            throw InputError(description: "3K3DES keys do not go through the uFR reader's DESFire commands")
        }
    }

    static func communication(_ mode: DESFireCommMode?) -> UFRDESFireCommunication {
        switch mode {
        case .mac: .maced
        case .enciphered: .enciphered
        case .plain, nil: .plain
        }
    }
}

/// `--new-reader-key N` and `--old-reader-key N` of `change-key` and `des-to-aes`.
struct DESFireChangedReaderKeyOptions: ParsableArguments {
    @Option(
        name: .customLong("new-reader-key"),
        help: ArgumentHelp("uFR readers: the new key is the AES key in this reader key slot (0-15).", valueName: "N"))
    var newSlot: Int?

    @Option(
        name: .customLong("old-reader-key"),
        help: ArgumentHelp(
            "uFR readers: the key being changed is now the AES key in this reader key slot (0-15).", valueName: "N"))
    var oldSlot: Int?

    var isRequested: Bool { newSlot != nil || oldSlot != nil }
}
