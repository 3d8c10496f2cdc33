/// The page writes that put an NDEF message into a Type 2 tag's data area (NFC Forum Type 2 Tag,
/// §2.3): the NDEF TLV and a Terminator from `tlvStart` on (TLVs before it, Lock and Memory
/// Control, stay), written so that a tag lifted mid-write holds an empty message, never a cut
/// one: first the pages of the TLV header with length 0, then the message's pages, then the
/// header's pages with the real length. ``Type2Tag`` and CardFlowStorageCards' `NTAGClient` both write
/// through it.
///
/// ```swift
/// let plan = try Type2NDEFWrite(message: encoded, area: area, tlvStart: 0)
/// for write in plan.writes { try await writePage(4 + write.page, write.bytes) }
/// ```
public struct Type2NDEFWrite: Sendable, Hashable {
    /// One 4-byte page of the data area (page 0 is the tag's page 4).
    public struct PageWrite: Sendable, Hashable {
        /// The page within the data area.
        public let page: Int
        /// Its four bytes.
        public let bytes: [UInt8]

        /// - Parameters:
        ///   - page: the page within the data area.
        ///   - bytes: its four bytes.
        public init(page: Int, bytes: [UInt8]) {
            self.page = page
            self.bytes = bytes
        }
    }

    /// The writes, in the order to send them.
    public let writes: [PageWrite]

    /// Plans the writes.
    ///
    /// - Parameters:
    ///   - message: the encoded NDEF message.
    ///   - area: the data area as read (a whole number of pages).
    ///   - tlvStart: where the NDEF TLV goes: the offset of the present one, or 0.
    /// - Throws: ``NDEFTagError/messageTooLarge(size:capacity:)`` when the TLV does not fit
    ///   from `tlvStart` on (a Terminator follows it where there is room).
    public init(message: [UInt8], area: [UInt8], tlvStart: Int) throws(NDEFTagError) {
        let start = tlvStart
        let headerCount = Type2Tag.ndefTLVHeaderCount(forLength: message.count)
        guard let header = Type2Tag.ndefTLVHeader(length: message.count), start >= 0,
            start + header.count + message.count <= area.count
        else {
            throw .messageTooLarge(size: message.count, capacity: max(0, area.count - start - headerCount))
        }
        // The Terminator TLV is optional (NFC Forum Type 2 Tag): a message that fills the
        // area to its last byte goes without one, as NXP counts NTAG21x capacity (137 bytes for
        // an NTAG213's 144 after its Lock Control TLV).
        let terminator: [UInt8] = start + header.count + message.count < area.count ? [0xFE] : []
        let tlv = header + message + terminator
        var image = area
        image.replaceSubrange(start..<start + tlv.count, with: tlv)
        var emptied = image
        emptied.replaceSubrange(
            start..<start + header.count, with: header.count == 2 ? [0x03, 0x00] : [0x03, 0xFF, 0x00, 0x00])
        func page(_ index: Int, of bytes: [UInt8]) -> PageWrite {
            PageWrite(page: index, bytes: Array(bytes[index * 4..<min(bytes.count, index * 4 + 4)]))
        }
        let first = start / 4
        let headerEnd = (start + header.count - 1) / 4
        let last = (start + tlv.count - 1) / 4
        var writes = (first...headerEnd).map { page($0, of: emptied) }
        if headerEnd < last { writes += ((headerEnd + 1)...last).map { page($0, of: image) } }
        writes += (first...headerEnd).map { page($0, of: image) }
        self.writes = writes
    }
}
