/// Reads commands from the bytes one peer sends (a TCP connection, or one UDP address: its
/// datagrams form one stream, as pyuFR and the Online treat them), as ufr.md §7.1 item 1 says:
/// skip to `55`; read 7 bytes; check the trailer and checksum; for `[3] > 0` acknowledge, then
/// read exactly `[3]` bytes and check their checksum.
struct UFRCommandParser: Sendable {
    /// What the parser found.
    enum Event: Sendable, Equatable {
        /// Bytes to send back at once (an ACK, or CHKSUM_ERROR for a bad frame).
        case reply([UInt8])
        /// A whole command to run.
        case command(code: UInt8, parameter0: UInt8, parameter1: UInt8, ext: [UInt8])
    }

    private var buffer: [UInt8] = []
    /// The packet of an extended command whose CMD_EXT is awaited.
    private var pending: [UInt8]?

    /// Adds bytes and returns what they complete, in order.
    mutating func feed(_ bytes: [UInt8]) -> [Event] {
        buffer += bytes
        var events: [Event] = []
        while true {
            if let packet = pending {
                let count = Int(packet[3])
                guard buffer.count >= count else { break }
                let block = Array(buffer.prefix(count))
                buffer.removeFirst(count)
                pending = nil
                let data = Array(block.dropLast())
                guard block.last == UFRWireFormat.checksum(data) else {
                    events.append(.reply(UFRWireFormat.error(0x02)))
                    continue
                }
                events.append(.command(code: packet[1], parameter0: packet[4], parameter1: packet[5], ext: data))
                continue
            }
            guard let start = buffer.firstIndex(of: UFRWireFormat.commandHeader) else {
                buffer.removeAll()
                break
            }
            buffer.removeFirst(start)
            guard buffer.count >= 7 else { break }
            let packet = Array(buffer.prefix(7))
            guard packet[2] == UFRWireFormat.commandTrailer else {
                buffer.removeFirst()
                continue
            }
            guard packet[6] == UFRWireFormat.checksum(packet.prefix(6)) else {
                // ufr.md §2.4's suggestion: CHKSUM_ERROR, then resynchronise on the next 55.
                buffer.removeFirst()
                events.append(.reply(UFRWireFormat.error(0x02)))
                continue
            }
            buffer.removeFirst(7)
            if packet[3] > 0 {
                pending = packet
                events.append(.reply(UFRWireFormat.acknowledgement(packet)))
            } else {
                events.append(.command(code: packet[1], parameter0: packet[4], parameter1: packet[5], ext: []))
            }
        }
        return events
    }
}
