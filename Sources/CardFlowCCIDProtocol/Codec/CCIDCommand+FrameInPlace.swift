/// An XfrBlock framed in the storage of its own data, and taken apart the same way: the command
/// APDU of a driver's caller becomes the bulk-OUT message and, at the simulated reader, the
/// command its card gets, with no array allocated between them (issue 40).
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

    /// Decodes a bulk-OUT message as ``init(decoding:)`` does, except that an XfrBlock's data is
    /// `frame` itself with the header removed in place: on success `frame` is left empty, and a
    /// frame the caller held alone becomes the command's data without a copy. On failure `frame`
    /// is unchanged (a reader answers a malformed message from its header).
    package init(decodingFrame frame: inout [UInt8]) throws(CCIDFrameError) {
        guard try CCIDFraming.messageType(of: frame, commands: true) == .xfrBlock else {
            try self.init(decoding: frame)
            return
        }
        let (slot, sequence, multiplier) = (frame[5], frame[6], frame[7])
        let level = UInt16(frame[8]) | UInt16(frame[9]) << 8
        var data: [UInt8] = []
        swap(&data, &frame)
        data.removeSubrange(0..<ccidHeaderLength)
        self.init(
            slot: slot, sequence: sequence,
            kind: .xfrBlock(blockWaitingTimeMultiplier: multiplier, levelParameter: level, data: data))
    }
}
