import Foundation
import NIOCore

/// One line from a control client, or the news that a line was longer than allowed.
public enum ControlLine: Sendable, Hashable {
    /// A line without its newline (and without a trailing carriage return).
    case line(String)
    /// A line longer than `limit` bytes; its bytes were dropped.
    case tooLong(limit: Int)
}

/// Splits the byte stream into newline-terminated lines, refusing lines longer than a bound:
/// the bytes of an oversize line are dropped as they arrive (memory stays bounded) and one
/// ``ControlLine/tooLong(limit:)`` is emitted when its newline arrives.
package struct ControlLineDecoder: ByteToMessageDecoder {
    package typealias InboundOut = ControlLine

    package let maximumLength: Int
    private var discarding = false
    /// Bytes at the front of the buffer already known to hold no newline (not scanned again).
    private var scanned = 0

    package init(maximumLength: Int) {
        self.maximumLength = maximumLength
    }

    package mutating func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
        let start = scanned
        let found: Int? = buffer.withUnsafeReadableBytes { bytes in
            guard bytes.count > start, let base = bytes.baseAddress,
                let hit = memchr(base + start, Int32(UInt8(ascii: "\n")), bytes.count - start)
            else { return nil }
            return base.distance(to: UnsafeRawPointer(hit))
        }
        guard let length = found else {
            if buffer.readableBytes > maximumLength {
                discarding = true
                buffer.moveReaderIndex(forwardBy: buffer.readableBytes)
                scanned = 0
            } else {
                scanned = buffer.readableBytes
            }
            return .needMoreData
        }
        scanned = 0
        let lineBytes = buffer.readSlice(length: length)!
        buffer.moveReaderIndex(forwardBy: 1)
        if discarding || length > maximumLength {
            discarding = false
            context.fireChannelRead(wrapInboundOut(.tooLong(limit: maximumLength)))
        } else {
            var text = String(buffer: lineBytes)
            if text.hasSuffix("\r") { text.removeLast() }
            context.fireChannelRead(wrapInboundOut(.line(text)))
        }
        return .continue
    }

    package mutating func decodeLast(context: ChannelHandlerContext, buffer: inout ByteBuffer, seenEOF: Bool) throws
        -> DecodingState
    {
        while try decode(context: context, buffer: &buffer) == .continue {}
        // A last line without a newline still counts; so does an oversize one whose bytes were
        // all dropped already (the buffer is empty then, but the client must hear why).
        if buffer.readableBytes > 0 || discarding {
            let rest = buffer.readString(length: buffer.readableBytes) ?? ""
            context.fireChannelRead(wrapInboundOut(discarding ? .tooLong(limit: maximumLength) : .line(rest)))
            discarding = false
            scanned = 0
        }
        return .needMoreData
    }
}
