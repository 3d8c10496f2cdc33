/// An NFC Forum Type 4 Tag (T4T 2.0, ISO-DEP) holding an NDEF message, written from the NFC
/// Forum Type 4 Tag specification: the NDEF Tag Application (AID D2760000850101) with a
/// capability container file (E103) and an NDEF file (E104) whose first two bytes are NLEN.
///
/// ```swift
/// let tag = NDEFType4Tag(seed: 1, capacity: 1024)          // empty NDEF message, writable
/// let locked = NDEFType4Tag(seed: 2, message: bytes, readOnly: true)
/// ```
public struct NDEFType4Tag: PersistentVirtualCard, Hashable {
    public static let persistentKind = "ndef4"
    public static let applicationID: [UInt8] = [0xD2, 0x76, 0x00, 0x00, 0x85, 0x01, 0x01]
    public static let capabilityContainerID: UInt16 = 0xE103
    public static let ndefFileID: UInt16 = 0xE104

    public var kind: String { Self.persistentKind }
    public let uid: [UInt8]
    /// DESFire-like ISO-DEP type A, as NTAG 424 / DESFire NDEF tags present themselves.
    public var technology: ContactlessTechnology { .desfireTypeA }

    /// The NDEF file: NLEN (2 bytes, big-endian) then the message, padded to the file size.
    public private(set) var ndefFile: [UInt8]
    public let readOnly: Bool
    /// Largest data field the tag accepts in one UPDATE BINARY (MLc) and returns in one
    /// READ BINARY (MLe).
    public let maxCommandData: Int
    public let maxResponseData: Int

    private var applicationSelected = false
    private var selectedFile: UInt16?

    /// A tag whose NDEF file holds `capacity` bytes (NLEN included) and, initially, `message`.
    public init(
        seed: UInt64 = 0, capacity: Int = 1024, message: [UInt8] = [], readOnly: Bool = false,
        maxCommandData: Int = 0xF6, maxResponseData: Int = 0xFF
    ) {
        uid = ISO7816Card.uid(fromSeed: seed)
        let size = min(max(capacity, 3), 0x7FFF)
        let stored = message.prefix(size - 2)
        // size <= 0x7FFF, so NLEN fits two bytes.
        var file = [UInt8(truncatingIfNeeded: stored.count >> 8), UInt8(truncatingIfNeeded: stored.count)] + stored
        file += [UInt8](repeating: 0, count: max(0, size - file.count))
        ndefFile = file
        self.readOnly = readOnly
        // MLc and MLe are two bytes in the capability container (1…FFFF).
        self.maxCommandData = min(max(maxCommandData, 1), 0xFFFF)
        self.maxResponseData = min(max(maxResponseData, 1), 0xFFFF)
    }

    /// The capability container: CCLEN 000F, mapping version 2.0, MLe, MLc, and the NDEF File
    /// Control TLV (T=04, L=06: file id, maximum NDEF file size, read access 00, write access
    /// 00 or FF for read-only).
    public var capabilityContainer: [UInt8] {
        [
            0x00, 0x0F, 0x20,
            UInt8(truncatingIfNeeded: maxResponseData >> 8), UInt8(truncatingIfNeeded: maxResponseData),
            UInt8(truncatingIfNeeded: maxCommandData >> 8), UInt8(truncatingIfNeeded: maxCommandData),
            0x04, 0x06, 0xE1, 0x04,
            UInt8(truncatingIfNeeded: ndefFile.count >> 8), UInt8(truncatingIfNeeded: ndefFile.count),
            0x00, readOnly ? 0xFF : 0x00,
        ]
    }

    /// The NDEF message currently stored (NLEN bytes after the length field).
    public var message: [UInt8] {
        let length = Int(ndefFile[0]) << 8 | Int(ndefFile[1])
        return Array(ndefFile[2..<min(2 + length, ndefFile.count)])
    }

    public mutating func powerOn() {
        applicationSelected = false
        selectedFile = nil
    }

    public mutating func process(_ command: [UInt8]) -> [UInt8] {
        guard let apdu = ISO7816CommandAPDU(parsing: command) else { return [0x67, 0x00] }
        guard apdu.cla == 0x00 else { return [0x6E, 0x00] }
        switch apdu.ins {
        case 0xA4: return select(apdu)
        case 0xB0: return readBinary(apdu)
        case 0xD6: return updateBinary(apdu)
        default: return [0x6D, 0x00]
        }
    }

    private mutating func select(_ apdu: ISO7816CommandAPDU) -> [UInt8] {
        switch (apdu.p1, apdu.p2) {
        case (0x04, 0x00), (0x04, 0x0C):
            guard apdu.data == Self.applicationID else { return [0x6A, 0x82] }
            applicationSelected = true
            selectedFile = nil
            return [0x90, 0x00]
        case (0x00, 0x0C), (0x00, 0x00):
            // Select by file identifier inside the NDEF Tag Application.
            guard applicationSelected else { return [0x6A, 0x82] }
            guard apdu.data.count == 2 else { return [0x67, 0x00] }
            let id = UInt16(apdu.data[0]) << 8 | UInt16(apdu.data[1])
            guard id == Self.capabilityContainerID || id == Self.ndefFileID else { return [0x6A, 0x82] }
            selectedFile = id
            return [0x90, 0x00]
        default:
            return [0x6A, 0x86]
        }
    }

    private func currentFile() -> [UInt8]? {
        switch selectedFile {
        case Self.capabilityContainerID: capabilityContainer
        case Self.ndefFileID: ndefFile
        default: nil
        }
    }

    private func readBinary(_ apdu: ISO7816CommandAPDU) -> [UInt8] {
        guard let file = currentFile() else { return [0x69, 0x86] }
        let offset = Int(apdu.p1) << 8 | Int(apdu.p2)
        guard apdu.p1 & 0x80 == 0 else { return [0x6A, 0x86] }
        guard let wanted = apdu.ne, wanted <= maxResponseData || apdu.leIsMaximum else { return [0x67, 0x00] }
        guard offset < file.count else { return [0x6B, 0x00] }
        let count = min(wanted, maxResponseData, file.count - offset)
        let data = Array(file[offset..<offset + count])
        return data + (count < wanted && !apdu.leIsMaximum ? [0x62, 0x82] : [0x90, 0x00])
    }

    private mutating func updateBinary(_ apdu: ISO7816CommandAPDU) -> [UInt8] {
        guard let selectedFile else { return [0x69, 0x86] }
        guard selectedFile == Self.ndefFileID else { return [0x69, 0x82] }
        guard !readOnly else { return [0x69, 0x82] }
        let offset = Int(apdu.p1) << 8 | Int(apdu.p2)
        guard apdu.p1 & 0x80 == 0 else { return [0x6A, 0x86] }
        guard !apdu.data.isEmpty, apdu.data.count <= maxCommandData, apdu.ne == nil else { return [0x67, 0x00] }
        guard offset + apdu.data.count <= ndefFile.count else { return [0x6A, 0x84] }
        ndefFile.replaceSubrange(offset..<offset + apdu.data.count, with: apdu.data)
        return [0x90, 0x00]
    }

    // Persistence: the memory and configuration, not the selection.
    private enum CodingKeys: String, CodingKey {
        case uid, ndefFile, readOnly, maxCommandData, maxResponseData
    }

    /// Decodes a saved tag, refusing sizes the tag could not have (so an edited state file
    /// cannot make the capability container or NLEN trap).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let uid = try container.decode([UInt8].self, forKey: .uid)
        guard [4, 7, 10].contains(uid.count) else {
            throw DecodingError.dataCorruptedError(
                forKey: .uid, in: container, debugDescription: "UID must have 4, 7 or 10 bytes")
        }
        let ndefFile = try container.decode([UInt8].self, forKey: .ndefFile)
        guard (3...0x7FFF).contains(ndefFile.count) else {
            throw DecodingError.dataCorruptedError(
                forKey: .ndefFile, in: container,
                debugDescription: "NDEF file of \(ndefFile.count) bytes, 3...32767 expected")
        }
        let maxCommandData = try container.decode(Int.self, forKey: .maxCommandData)
        let maxResponseData = try container.decode(Int.self, forKey: .maxResponseData)
        guard (1...0xFF).contains(maxCommandData), (0x0F...0xFFFF).contains(maxResponseData) else {
            throw DecodingError.dataCorruptedError(
                forKey: .maxCommandData, in: container,
                debugDescription: "MLc must be 1...255 and MLe 15...65535")
        }
        self.uid = uid
        self.ndefFile = ndefFile
        self.maxCommandData = maxCommandData
        self.maxResponseData = maxResponseData
        readOnly = try container.decode(Bool.self, forKey: .readOnly)
    }
}
