/// An XfrBlock framed in the storage of its own data, and taken apart without copying it: the
/// command APDU of a driver's caller becomes the bulk-OUT message and, at the simulated reader,
/// the command its card gets, with no array allocated between them (issue 40).
extension CCIDCommand {
    /// The wire bytes of an XfrBlock whose data the caller hands over: the 10-byte header goes
    /// in front of the data in the data's own storage, the bytes shifted in place, when that
    /// storage is not shared and has room (`CommandAPDU.encoded()` leaves it); otherwise the
    /// array grows, one allocation, as encoding would. Any other message is ``encoded()``.
    package consuming func frameAroundTransferData() -> [UInt8] {
        guard case .xfrBlock(let multiplier, let level, var data) = kind else { return encoded() }
        // The command lets go of its data: `data` holds the only reference the caller handed over.
        kind = .abort
        let length = UInt32(truncatingIfNeeded: data.count)
        let header: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) = (
            CCIDMessageType.xfrBlock.rawValue,
            UInt8(truncatingIfNeeded: length), UInt8(truncatingIfNeeded: length >> 8),
            UInt8(truncatingIfNeeded: length >> 16), UInt8(truncatingIfNeeded: length >> 24),
            slot, sequence, multiplier, UInt8(truncatingIfNeeded: level), UInt8(truncatingIfNeeded: level >> 8)
        )
        // The tuple's bytes as a collection: no temporary array for the header.
        withUnsafeBytes(of: header) { data.insert(contentsOf: $0, at: 0) }
        return data
    }

    /// Decodes a bulk-OUT message as ``init(decoding:)`` does, with the same checks and errors,
    /// except that an XfrBlock's data is not copied out: the command carries empty data, and the
    /// data stays in `frame` behind its ``ccidHeaderLength``-byte header, where a reader reads it
    /// in place or takes it over (issue 40). Any other message decodes whole.
    package init(decodingLeavingTransferData frame: borrowing [UInt8]) throws(CCIDFrameError) {
        guard try CCIDFraming.messageType(of: frame, commands: true) == .xfrBlock else {
            try self.init(decoding: copy frame)
            return
        }
        let level = UInt16(frame[8]) | UInt16(frame[9]) << 8
        self.init(
            slot: frame[5], sequence: frame[6],
            kind: .xfrBlock(blockWaitingTimeMultiplier: frame[7], levelParameter: level, data: []))
    }
}
