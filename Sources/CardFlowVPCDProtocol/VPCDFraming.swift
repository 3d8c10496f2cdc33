import NIOCore

/// The vpcd framing: a 2-byte big-endian length, then that many bytes.
public enum VPCDFraming {
    /// The longest payload the 2-byte length can announce.
    public static let maximumFramablePayload = Int(UInt16.max)

    /// The default bound on an incoming payload: an extended-length response (65,536 data bytes
    /// and SW1 SW2). The 2-byte length cannot exceed 65,535, so this default only refuses what the
    /// framing cannot carry anyway; set a lower one to bound memory per connection further.
    public static let defaultMaximumPayload = 65_538

    /// `payload` with its length prefix.
    ///
    /// - Throws: ``VPCDError/notFramable(length:)`` for an empty payload or one over 65,535 bytes.
    public static func frame(_ payload: [UInt8]) throws(VPCDError) -> [UInt8] {
        guard !payload.isEmpty, payload.count <= maximumFramablePayload else {
            throw .notFramable(length: payload.count)
        }
        // 1 ... 65,535 after the guard: both bytes fit.
        return [UInt8(truncatingIfNeeded: payload.count >> 8), UInt8(truncatingIfNeeded: payload.count)] + payload
    }

    /// Takes one complete message off the front of `buffer`, or returns nil (consuming nothing)
    /// when it has not arrived completely yet.
    ///
    /// The length is checked as soon as its two bytes are there, so an oversized or empty message
    /// is refused before any of its body is buffered.
    ///
    /// - Throws: ``VPCDError/emptyMessage``, ``VPCDError/messageTooLarge(length:maximum:)``.
    public static func takeMessage(from buffer: inout ByteBuffer, maximumPayload: Int) throws(VPCDError) -> [UInt8]? {
        guard let length = buffer.getInteger(at: buffer.readerIndex, endianness: .big, as: UInt16.self) else {
            return nil
        }
        let count = Int(length)
        guard count > 0 else { throw .emptyMessage }
        guard count <= maximumPayload else { throw .messageTooLarge(length: count, maximum: maximumPayload) }
        guard buffer.readableBytes >= 2 + count else { return nil }
        buffer.moveReaderIndex(forwardBy: 2)
        return buffer.readBytes(length: count)
    }
}
