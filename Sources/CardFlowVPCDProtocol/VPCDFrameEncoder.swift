import NIOCore

/// Writes payloads as vpcd messages (``VPCDFraming``): 2-byte big-endian length, then the bytes.
///
/// A payload that cannot be framed (empty, over 65,535 bytes) fails the write with
/// ``VPCDError/notFramable(length:)``.
public struct VPCDFrameEncoder: MessageToByteEncoder, Sendable {
    public typealias OutboundIn = [UInt8]

    public init() {}

    public func encode(data: [UInt8], out: inout ByteBuffer) throws {
        guard !data.isEmpty, data.count <= VPCDFraming.maximumFramablePayload else {
            throw VPCDError.notFramable(length: data.count)
        }
        out.writeInteger(UInt16(data.count), endianness: .big)
        out.writeBytes(data)
    }
}
