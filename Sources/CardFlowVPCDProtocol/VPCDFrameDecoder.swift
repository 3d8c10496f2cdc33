import NIOCore

/// Splits a TCP byte stream into vpcd message payloads (``VPCDFraming``), bounded.
///
/// Errors (``VPCDError/emptyMessage``, ``VPCDError/messageTooLarge(length:maximum:)``,
/// ``VPCDError/truncatedMessage(expected:received:)`` at end of stream) go down the pipeline;
/// the connection is then unusable and is closed by its owner.
///
/// ```swift
/// try channel.pipeline.syncOperations.addHandler(
///     ByteToMessageHandler(VPCDFrameDecoder(maximumPayload: 300)))
/// ```
public struct VPCDFrameDecoder: ByteToMessageDecoder, Sendable {
    public typealias InboundOut = [UInt8]

    /// The longest payload accepted.
    public let maximumPayload: Int

    public init(maximumPayload: Int = VPCDFraming.defaultMaximumPayload) {
        self.maximumPayload = maximumPayload
    }

    public mutating func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
        guard let payload = try VPCDFraming.takeMessage(from: &buffer, maximumPayload: maximumPayload) else {
            return .needMoreData
        }
        context.fireChannelRead(wrapInboundOut(payload))
        return .continue
    }

    public mutating func decodeLast(context: ChannelHandlerContext, buffer: inout ByteBuffer, seenEOF: Bool) throws
        -> DecodingState
    {
        while try decode(context: context, buffer: &buffer) == .continue {}
        // Anything left is a message cut short: say so, rather than NIO's generic leftover error.
        guard buffer.readableBytes > 0 else { return .needMoreData }
        let expected =
            buffer.readableBytes >= 2
            ? Int(buffer.getInteger(at: buffer.readerIndex, endianness: .big, as: UInt16.self) ?? 0) : 2
        let received = buffer.readableBytes >= 2 ? buffer.readableBytes - 2 : buffer.readableBytes
        buffer.clear()
        throw VPCDError.truncatedMessage(expected: expected, received: received)
    }
}
