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
        // Compared as a number; the arrays are built only for the error.
        let value = checksum.edc(bytes[..<(3 + declared)])
        let received = bytes[(3 + declared)...]
        let matches =
            checksum == .crc
            ? received.first == UInt8(truncatingIfNeeded: value >> 8)
                && received.last == UInt8(truncatingIfNeeded: value)
            : received.first == UInt8(truncatingIfNeeded: value)
        guard matches else {
            var expected: [UInt8] = []
            checksum.append(edc: value, to: &expected)
            throw .checksumMismatch(expected: expected, received: Array(received))
        }
        nodeAddress = bytes[0]
        kind = try T1BlockKind(protocolControlByte: bytes[1])
        information = 3..<(3 + declared)
    }
}
