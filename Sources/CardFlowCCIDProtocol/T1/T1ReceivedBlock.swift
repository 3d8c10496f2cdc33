// The T=1 block check of T1Block(decoding:), without copying the information field out.

/// A received block checked in place: its NAD, its kind and where its INF lies in the bytes, so
/// a receiver can use the information field without copying it out.
struct T1ReceivedBlock {
    let nodeAddress: UInt8
    let kind: T1BlockKind
    /// The INF's indices in the checked bytes.
    let information: Range<Int>

    /// Checks framing and EDC as ``T1Block/init(decoding:checksum:)`` documents.
    init(checking bytes: [UInt8], checksum: T1Checksum) throws(T1Error) {
        let minimumLength = 3 + checksum.length
        guard bytes.count >= minimumLength else {
            throw .blockTooShort(length: bytes.count, minimum: minimumLength)
        }
        let declared = Int(bytes[2])
        guard declared != 0xFF else { throw .reservedLength }
        guard bytes.count == minimumLength + declared else {
            throw .lengthMismatch(declared: declared, actual: bytes.count - minimumLength)
        }
        // Checked in place; the arrays are built only for the error.
        guard checksum.isEnding(of: bytes) else {
            throw .checksumMismatch(
                expected: checksum.compute(bytes[..<(3 + declared)]), received: Array(bytes[(3 + declared)...]))
        }
        nodeAddress = bytes[0]
        kind = try T1BlockKind(protocolControlByte: bytes[1])
        information = 3..<(3 + declared)
    }
}
