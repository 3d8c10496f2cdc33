/// The capability container of an NFC Forum Type 4 Tag (T4T 2.0, mapping version 2.0).
public struct Type4CapabilityContainer: Sendable, Hashable {
    public var mappingVersion: UInt8
    /// MLe: the most bytes one READ BINARY returns.
    public var maximumReadLength: Int
    /// MLc: the most bytes one UPDATE BINARY takes.
    public var maximumWriteLength: Int
    public var ndefFileID: [UInt8]
    /// Size of the NDEF file, NLEN included.
    public var maximumNDEFFileSize: Int
    public var readAccess: UInt8
    public var writeAccess: UInt8

    /// Parses the first 15 bytes (CCLEN, version, MLe, MLc, NDEF File Control TLV).
    public init(bytes: [UInt8]) throws(NDEFTagError) {
        guard bytes.count >= 15 else { throw .malformedCapabilityContainer("\(bytes.count) bytes, 15 needed") }
        mappingVersion = bytes[2]
        guard mappingVersion >> 4 == 2 || mappingVersion >> 4 == 1 else {
            throw .malformedCapabilityContainer(
                "unsupported mapping version \(mappingVersion >> 4).\(mappingVersion & 0x0F)")
        }
        maximumReadLength = Int(bytes[3]) << 8 | Int(bytes[4])
        maximumWriteLength = Int(bytes[5]) << 8 | Int(bytes[6])
        guard maximumReadLength >= 0x0F, maximumWriteLength >= 0x01 else {
            throw .malformedCapabilityContainer(
                "MLe \(maximumReadLength) / MLc \(maximumWriteLength) below the minimum")
        }
        guard bytes[7] == 0x04, bytes[8] == 0x06 else {
            throw .malformedCapabilityContainer("no NDEF File Control TLV (T=04, L=06) at offset 7")
        }
        ndefFileID = [bytes[9], bytes[10]]
        maximumNDEFFileSize = Int(bytes[11]) << 8 | Int(bytes[12])
        guard maximumNDEFFileSize >= 3 else {
            throw .malformedCapabilityContainer("NDEF file size \(maximumNDEFFileSize) too small")
        }
        readAccess = bytes[13]
        writeAccess = bytes[14]
        // Cap the read length at what a short APDU can carry.
        maximumReadLength = min(maximumReadLength, 256)
        maximumWriteLength = min(maximumWriteLength, 255)
    }

    /// Write access 00 means granted without security; FF means read-only.
    public var isWritable: Bool { writeAccess == 0x00 }
}
