import CardFlow
import CardFlowISO15693

/// NDEF on an NFC Forum Type 5 Tag (ISO 15693): a capability container in the first bytes of
/// block 0 (E1 or E2, version and access, data area size / 8, features) followed by the same
/// TLV area as Type 2 tags, read and written in whole blocks (single-block writes).
///
/// Like the other tag types, a write sets the NDEF TLV length to 0 first and to the real
/// length last, so a tag lifted mid-write never holds a partial message that reads as valid.
public struct Type5Tag: Sendable {
    public let tag: ISO15693Tag

    public init(channel: any CardChannel) {
        tag = ISO15693Tag(channel: channel)
    }

    /// The capability container and the tag's geometry. `dataAreaSize` is what the CC declares,
    /// bounded by the memory the tag reports (a CC may claim far more than exists).
    public func capabilityContainer() async throws -> (dataAreaSize: Int, writable: Bool, blockSize: Int, ccLength: Int)
    {
        let info = try await tag.systemInformation()
        let first = try await tag.readBlocks(0, count: max(1, 8 / info.blockSize), blockSize: info.blockSize)
        guard first.count >= 4 else {
            throw NDEFTagError.malformedCapabilityContainer("\(first.count)-byte CC cut short")
        }
        guard first[0] == 0xE1 || first[0] == 0xE2 else {
            throw NDEFTagError.malformedCapabilityContainer("magic number \(first[0]) is neither E1 nor E2")
        }
        guard first[1] >> 6 == 1 else {
            throw NDEFTagError.malformedCapabilityContainer("unsupported major version \(first[1] >> 6)")
        }
        let writable = (first[1] & 0x03) == 0x00
        let memory = info.blockCount * info.blockSize
        // An MLEN of 0 announces the 8-byte CC with a 2-byte size in bytes 6-7.
        if first[2] == 0 {
            guard first.count >= 8 else { throw NDEFTagError.malformedCapabilityContainer("8-byte CC cut short") }
            return (min((Int(first[6]) << 8 | Int(first[7])) * 8, memory), writable, info.blockSize, 8)
        }
        return (min(Int(first[2]) * 8, memory), writable, info.blockSize, 4)
    }

    public func readMessageBytes() async throws -> [UInt8] {
        let cc = try await capabilityContainer()
        let area = try await readArea(cc)
        guard let location = try Type2Tag.locateNDEF(in: area) else {
            throw NDEFTagError.malformedNDEFFile("no NDEF TLV in the data area")
        }
        guard location.valueOffset + location.length <= area.count else {
            throw NDEFTagError.malformedNDEFFile("NDEF TLV length \(location.length) runs past the data area")
        }
        return Array(area[location.valueOffset..<location.valueOffset + location.length])
    }

    public func writeMessageBytes(_ message: [UInt8]) async throws {
        let cc = try await capabilityContainer()
        guard cc.writable else { throw NDEFTagError.readOnly }
        let capacity = max(0, cc.dataAreaSize - cc.ccLength)
        guard let header = Type2Tag.ndefTLVHeader(length: message.count), header.count + message.count + 1 <= capacity
        else {
            let headerCount = Type2Tag.ndefTLVHeaderCount(forLength: message.count)
            throw NDEFTagError.messageTooLarge(size: message.count, capacity: max(0, capacity - headerCount - 1))
        }
        let tlv = header + message + [0xFE]
        // The memory image from the CC on, block aligned.
        var image = try await tag.readBlocks(
            0, count: (cc.ccLength + tlv.count + cc.blockSize - 1) / cc.blockSize, blockSize: cc.blockSize)
        image.replaceSubrange(cc.ccLength..<cc.ccLength + tlv.count, with: tlv)
        var emptied = image
        emptied.replaceSubrange(
            cc.ccLength..<cc.ccLength + header.count,
            with: header.count == 2 ? [0x03, 0x00] : [0x03, 0xFF, 0x00, 0x00])
        let headerBlocks = (cc.ccLength / cc.blockSize)...((cc.ccLength + header.count - 1) / cc.blockSize)
        let lastBlock = image.count / cc.blockSize - 1
        func block(_ index: Int, of bytes: [UInt8]) -> [UInt8] {
            Array(bytes[index * cc.blockSize..<(index + 1) * cc.blockSize])
        }
        for index in headerBlocks {
            try await tag.writeBlocks(index, data: block(index, of: emptied), blockSize: cc.blockSize)
        }
        if headerBlocks.upperBound < lastBlock {
            for index in (headerBlocks.upperBound + 1)...lastBlock {
                try await tag.writeBlocks(index, data: block(index, of: image), blockSize: cc.blockSize)
            }
        }
        for index in headerBlocks {
            try await tag.writeBlocks(index, data: block(index, of: image), blockSize: cc.blockSize)
        }
    }

    private func readArea(_ cc: (dataAreaSize: Int, writable: Bool, blockSize: Int, ccLength: Int)) async throws
        -> [UInt8]
    {
        let total = cc.dataAreaSize
        let bytes = try await tag.readBlocks(0, count: total / cc.blockSize, blockSize: cc.blockSize)
        return Array(bytes.dropFirst(cc.ccLength))
    }
}
