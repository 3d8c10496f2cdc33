// Card half of T=0 (ISO/IEC 7816-3 §10) as a TPDU-level CCID reader presents it: the reader
// collapses the procedure bytes, so a TPDU (5-byte header plus any command data) comes in whole
// and the card's data and SW1 SW2 go out whole. Written from the standard, independently of
// CCID's T0HostProtocol, so that host mistakes show up as failed exchanges.

/// What the card endpoint asks its owner (the virtual reader) to do with a TPDU.
public enum T0CardEvent: Sendable, Hashable {
    /// Send these bytes (data and SW1 SW2) back to the host.
    case respond([UInt8])
    /// Run this command APDU on the card model, then pass its answer to
    /// ``T0CardEndpoint/respond(with:)``.
    case process([UInt8])
}

/// The card side of T=0 at TPDU level.
///
/// - A 5-byte TPDU is a command without data (case 1 or 2): the card model sees it with P3 as
///   Le (00 meaning 256). An answer of exactly that many bytes goes out with its status word;
///   a longer one as P3 bytes and `61 xx`, the rest kept for GET RESPONSE; a shorter non-empty
///   one as `6C xx` (wrong length), and the same header with P3 = xx next gets it.
/// - A TPDU with data is case 3 (or 4, Le not transmitted): the card model sees header, Lc and
///   data. An answer with data is announced with `61 xx` and fetched with GET RESPONSE.
/// - GET RESPONSE (`C0`) is answered from the kept data while there is some (`6C xx` when P3
///   asks for more than is left); any other command drops it.
/// - ENVELOPE (`C2`), when supported: parts with command chaining (CLA bit 5) are collected,
///   the last one completes an APDU that runs like case 3 above; otherwise `6D 00`.
public struct T0CardEndpoint: Sendable {
    /// Whether the card takes commands in ENVELOPE.
    public let supportsEnvelope: Bool

    private enum Awaiting: Sendable, Hashable {
        case nothing
        /// A command without data (its 5-byte TPDU): the answer must have exactly `expected`
        /// bytes of data.
        case outgoing(tpdu: [UInt8], expected: Int)
        /// A command with data: data in the answer is announced with `61 xx`.
        case incoming
    }

    private var awaiting = Awaiting.nothing
    /// Data kept for GET RESPONSE and the status word that follows it (views of the card
    /// model's answer: kept, not copied).
    private var pendingData: ArraySlice<UInt8> = []
    private var pendingStatus: ArraySlice<UInt8> = []
    /// The answer held back behind `6C xx`, for the header it belongs to with the right P3.
    private var corrected: (tpdu: [UInt8], answer: [UInt8])?
    private var envelope: [UInt8]?

    public init(supportsEnvelope: Bool = true) {
        self.supportsEnvelope = supportsEnvelope
    }

    /// Takes one TPDU from the host.
    public mutating func receive(_ tpdu: [UInt8]) -> T0CardEvent {
        let held = corrected
        corrected = nil
        let pending = pendingStatus.isEmpty ? nil : (pendingData, pendingStatus)
        pendingData = []
        pendingStatus = []
        guard tpdu.count >= 5 else { return .respond([0x67, 0x00]) }
        let p3 = Int(tpdu[4])
        let dataCount = tpdu.count - 5
        // A T=0 card reads exactly P3 data bytes after the header: anything else is a
        // length error (at character level the card would wait or see extra bytes).
        guard dataCount == 0 || dataCount == p3 else { return .respond([0x67, 0x00]) }
        if dataCount == 0, let held, held.tpdu == tpdu { return .respond(held.answer) }
        let ins = tpdu[1]
        if ins == 0xC0, dataCount == 0, let (kept, status) = pending {
            return .respond(deliver(kept, status: status, asked: p3 == 0 ? 256 : p3))
        }
        if ins == 0xC2 {
            guard supportsEnvelope else { return .respond([0x6D, 0x00]) }
            guard dataCount > 0 else { return .respond([0x67, 0x00]) }
            let collected = (envelope ?? []) + tpdu[5...]
            guard collected.count <= 65_544 else {
                envelope = nil
                return .respond([0x67, 0x00])
            }
            if tpdu[0] & 0x10 != 0 {
                envelope = collected
                return .respond([0x90, 0x00])
            }
            envelope = nil
            awaiting = .incoming
            return .process(collected)
        }
        envelope = nil
        // Header and P3 (Le), or header, P3 (Lc) and data: the card model's command is the
        // TPDU itself.
        awaiting = dataCount == 0 ? .outgoing(tpdu: tpdu, expected: p3 == 0 ? 256 : p3) : .incoming
        return .process(tpdu)
    }

    /// Turns the card model's answer to the command of the last ``T0CardEvent/process(_:)``
    /// into what goes back over T=0. An empty answer (the card left) stays empty.
    public mutating func respond(with answer: [UInt8]) -> [UInt8] {
        let awaited = awaiting
        awaiting = .nothing
        guard answer.count > 2 else { return answer }
        let data = answer[..<(answer.count - 2)]
        let status = answer[(answer.count - 2)...]
        switch awaited {
        case .nothing:
            return Array(status)
        case .incoming:
            pendingData = data
            pendingStatus = status
            return [0x61, UInt8(truncatingIfNeeded: min(data.count, 256))]
        case .outgoing(let tpdu, let expected):
            if data.count == expected { return answer }
            if data.count > expected { return deliver(data, status: status, asked: expected) }
            // Wrong length: the card tells the host how many bytes it has, and keeps them for
            // the same command with that P3.
            let length = UInt8(truncatingIfNeeded: data.count)
            corrected = (Array(tpdu.prefix(4)) + [length], answer)
            return [0x6C, length]
        }
    }

    /// Sends `asked` bytes of `data`, keeping the rest behind `61 xx`, or `6C xx` when fewer
    /// than `asked` are left.
    private mutating func deliver(_ data: ArraySlice<UInt8>, status: ArraySlice<UInt8>, asked: Int) -> [UInt8] {
        guard asked <= data.count else {
            pendingData = data
            pendingStatus = status
            return [0x6C, UInt8(truncatingIfNeeded: data.count)]
        }
        let sent = data.prefix(asked)
        let rest = data.dropFirst(asked)
        var out: [UInt8] = []
        out.reserveCapacity(asked + 2)
        out += sent
        if rest.isEmpty {
            out += status
        } else {
            pendingData = rest
            pendingStatus = status
            out += [0x61, UInt8(truncatingIfNeeded: min(rest.count, 256))]
        }
        return out
    }
}
