// One T=0 TPDU at character level (ISO/IEC 7816-3 §10.3): the host sends the 5-byte header,
// then reads procedure bytes one decision at a time. NULL (60) asks for more time; ACK (INS)
// moves all remaining data bytes; INS ⊕ FF moves one; SW1 (6x but 60, or 9x) ends the command
// once SW2 has been read. A pure step machine: the driver carries each transfer in
// PC_to_RDR_XfrBlock with wLevelParameter = the number of bytes to read back.

/// What the caller of ``T0CharacterExchange`` does next.
public enum T0CharacterStep: Sendable, Hashable {
    /// Send these bytes to the card (possibly none), then read exactly `expect` bytes from it
    /// and feed them to ``T0CharacterExchange/receive(_:)``.
    case transfer(send: [UInt8], expect: Int)
    /// The TPDU is done: the card's data and SW1 SW2, as a TPDU-level reader returns them.
    case completed([UInt8])
    /// The card broke T=0 (or the TPDU cannot travel over it).
    case failed(CharacterLevelError)
}

/// The host side of one T=0 TPDU over the character level.
///
/// Each read asks for the bytes a conforming card is bound to send before it may wait for the
/// host: one procedure byte while command data is still to go (the card may ACK and wait),
/// otherwise two (SW1 SW2, or a procedure byte and what follows it), plus any data bytes an
/// ACK promised. This saves round trips without ever asking for a byte the card may withhold.
/// The same rule lets pcsc-lite's CCID driver read Le + 2 bytes after an ACK.
///
/// ```swift
/// var exchange = T0CharacterExchange(tpdu: [0x00, 0xB0, 0x00, 0x00, 0x10])
/// var step = exchange.start()     // .transfer(send: header, expect: 2)
/// ```
public struct T0CharacterExchange: Sendable {
    private enum Stage: Sendable, Hashable {
        /// Waiting for a procedure byte.
        case procedure
        /// Data bytes from the card the last ACK promised.
        case data(Int)
        /// SW1 arrived; SW2 is due.
        case statusWord2(UInt8)
        case finished
    }

    /// The 5-byte header (CLA INS P1 P2 P3).
    public let header: [UInt8]
    private let instruction: UInt8
    /// Command data not yet sent.
    private var toSend: ArraySlice<UInt8>
    /// True for a TPDU without command data: the card may send up to P3 bytes (00 meaning 256).
    private let receiving: Bool
    private var leftToReceive: Int
    private var received: [UInt8] = []
    private var stage = Stage.procedure
    private let malformed: CharacterLevelError?

    public init(tpdu: [UInt8]) {
        // A TPDU without data is its header: shared, not copied.
        header = tpdu.count == 5 ? tpdu : Array(tpdu.prefix(5))
        instruction = tpdu.count > 1 ? tpdu[1] : 0
        let p3 = tpdu.count >= 5 ? Int(tpdu[4]) : 0
        let data = tpdu.dropFirst(5)
        toSend = data
        receiving = data.isEmpty
        leftToReceive = data.isEmpty ? (p3 == 0 ? 256 : p3) : 0
        if tpdu.count < 5 || !(data.isEmpty || data.count == p3) {
            malformed = .malformedTPDU(length: tpdu.count)
        } else if tpdu[0] == 0xFF {
            malformed = .invalidClass(0xFF)
        } else if instruction & 0xF0 == 0x60 || instruction & 0xF0 == 0x90 {
            malformed = .invalidInstruction(instruction)
        } else {
            malformed = nil
        }
        // Room for all the card may send and SW1 SW2: the answer is built in one array, in place.
        received.reserveCapacity(leftToReceive + 2)
    }

    /// The first transfer: the header.
    public mutating func start() -> T0CharacterStep {
        if let malformed {
            stage = .finished
            return .failed(malformed)
        }
        return .transfer(send: header, expect: nextReadLength)
    }

    /// Feeds the bytes read back for the last transfer (exactly as many as it asked for).
    public mutating func receive(_ bytes: [UInt8]) -> T0CharacterStep {
        var send: [UInt8] = []
        var index = bytes.startIndex
        while index < bytes.endIndex {
            let byte = bytes[index]
            index += 1
            switch stage {
            case .finished:
                // Bytes after SW2 cannot come from a transfer that asked only for what was due.
                return .failed(.answerLength(expected: 0, received: bytes.count))
            case .statusWord2(let sw1):
                stage = .finished
                received.append(sw1)
                received.append(byte)
                return .completed(received)
            case .data(let count):
                // The promised data bytes are taken together, not one step each; this byte is the
                // first of them.
                let start = index - 1
                let taken = min(count, bytes.endIndex - start)
                received.append(contentsOf: bytes[start..<(start + taken)])
                index = start + taken
                leftToReceive -= taken
                stage = count > taken ? .data(count - taken) : .procedure
            case .procedure:
                if byte == 0x60 { continue }
                if byte & 0xF0 == 0x60 || byte & 0xF0 == 0x90 {
                    stage = .statusWord2(byte)
                    continue
                }
                let all = byte == instruction
                let one = byte == ~instruction
                guard all || one else {
                    stage = .finished
                    return .failed(.unexpectedProcedureByte(byte, instruction: instruction))
                }
                if receiving {
                    guard leftToReceive > 0 else {
                        stage = .finished
                        return .failed(.unexpectedProcedureByte(byte, instruction: instruction))
                    }
                    stage = .data(all ? leftToReceive : 1)
                } else {
                    // The card waits for our data: nothing it sends can follow before it.
                    guard !toSend.isEmpty, send.isEmpty else {
                        stage = .finished
                        return .failed(.unexpectedProcedureByte(byte, instruction: instruction))
                    }
                    let count = all ? toSend.count : 1
                    send = Array(toSend.prefix(count))
                    toSend = toSend.dropFirst(count)
                }
            }
        }
        if stage == .finished { return .failed(.answerLength(expected: 0, received: bytes.count)) }
        return .transfer(send: send, expect: nextReadLength)
    }

    /// Bytes the card is bound to send next before it may wait for the host.
    private var nextReadLength: Int {
        let following = toSend.isEmpty ? 2 : 1
        switch stage {
        case .procedure: return following
        case .data(let count): return count + following
        case .statusWord2: return 1
        case .finished: return 0
        }
    }
}
