// Host (terminal transport layer) side of T=0 at TPDU level, ISO/IEC 7816-3 §12.2 (mapping of
// the four command cases onto T=0 TPDUs) with ISO/IEC 7816-4 GET RESPONSE (C0) and ENVELOPE
// (C2), as a pure step machine. At TPDU level the CCID reader handles the procedure bytes: one
// TPDU (5-byte header plus any command data) goes out in one XfrBlock, and the DataBlock holds
// the card's data and SW1 SW2.

/// What the caller of ``T0HostProtocol`` does next.
public enum T0HostAction: Sendable, Hashable {
    /// Transmit this TPDU and feed the card's answer (data and SW1 SW2) to
    /// ``T0HostProtocol/receive(_:)``.
    case send([UInt8])
    /// The exchange finished: the response APDU (data followed by SW1 SW2).
    case completed([UInt8])
    /// The exchange failed; the card stays usable for the next command.
    case failed(T0ProtocolError)
}

/// The terminal side of T=0 for one command APDU at a time:
///
/// - case 1 goes out with P3 = 00; case 2 with P3 = Le (Ne = 256 as 00; Ne above 256, extended,
///   as 00 and the rest fetched with GET RESPONSE); case 3 with P3 = Lc; case 4 as case 3 (Le
///   dropped), its data then fetched with GET RESPONSE when the card answers `61xx`;
/// - `61xx` after a command that expects data: GET RESPONSE (`C0`) with P3 = xx (at most what
///   is still expected), data concatenated, until the card ends with another status word;
/// - `6Cxx` to a command without data (case 1, 2, GET RESPONSE): the same TPDU again with P3 =
///   xx;
/// - command data over 255 bytes (extended case 3 and 4): the whole APDU in ENVELOPE (`C2`)
///   commands of up to 255 bytes, command chaining (CLA bit 5) on all but the last; a card that
///   refuses the first with `6D00`, `6E00` or `6884` (no command chaining) gives ``T0ProtocolError/envelopeRefused(instruction:statusWord:)``.
///
/// Every loop is bounded by ``T0ExchangeLimits``.
public struct T0HostProtocol: Sendable {
    /// The bounds in force.
    public let limits: T0ExchangeLimits

    private enum Stage: Sendable, Hashable {
        case idle
        /// ENVELOPE parts still to go after the one in flight.
        case envelope(remaining: [[UInt8]])
        /// The command (or the last ENVELOPE, or a GET RESPONSE) is in flight.
        case awaitingAnswer
    }

    private var stage: Stage = .idle
    private var instruction: UInt8 = 0
    private var commandClass: UInt8 = 0
    /// Ne of the command; nil for cases 1 and 3 (no data expected).
    private var expectedLength: Int?
    private var gathered: [UInt8] = []
    /// CLA INS P1 P2 of the TPDU in flight, and whether it carried data: all a re-issue needs
    /// (the TPDU itself goes to the caller alone, which may hand its storage on).
    private var inFlightHeader: (UInt8, UInt8, UInt8, UInt8) = (0, 0, 0, 0)
    private var inFlightHasData = false
    private var getResponseRounds = 0
    private var leCorrections = 0
    private var envelopePartsSent = 0

    public init(limits: T0ExchangeLimits = T0ExchangeLimits()) {
        self.limits = limits
    }

    /// Starts one command APDU; returns the first TPDU (or a failure for a malformed APDU).
    ///
    /// The TPDU is made in the APDU's own storage (it differs from the APDU only in its length
    /// fields), so a caller that hands its only copy over pays for no new array.
    public mutating func begin(command apdu: consuming [UInt8]) -> T0HostAction {
        self = T0HostProtocol(limits: limits)
        guard let parsed = ParsedCommand(apdu) else { return .failed(.malformedCommand(length: apdu.count)) }
        instruction = apdu[1]
        commandClass = apdu[0]
        expectedLength = parsed.expectedLength
        if parsed.data.count > 255 {
            // ENVELOPE carries the whole command APDU, length fields included (ISO/IEC 7816-4 §7.6).
            let whole = copy apdu
            let chunks = stride(from: 0, to: whole.count, by: 255).map { Array(whole[$0..<min($0 + 255, whole.count)]) }
            let tpdus = chunks.enumerated().map { index, chunk in
                // A chunk holds at most 255 bytes (the stride above).
                [
                    Self.envelopeClass(for: commandClass, chained: index < chunks.count - 1), 0xC2, 0x00, 0x00,
                    UInt8(truncatingIfNeeded: chunk.count),
                ] + chunk
            }
            stage = .envelope(remaining: Array(tpdus.dropFirst()))
            envelopePartsSent = 1
            return send(tpdus[0])
        }
        stage = .awaitingAnswer
        // The header stays; what follows it becomes P3 and the data (at most 255 bytes here).
        var tpdu = consume apdu
        let p3: UInt8
        if parsed.data.isEmpty {
            // Case 1: P3 = 00. Case 2: P3 = Ne, where 256 (and anything larger) is coded 00.
            p3 = parsed.expectedLength.map { $0 >= 256 ? 0 : UInt8($0) } ?? 0
        } else {
            // Case 3 or 4: P3 = Nc.
            p3 = UInt8(truncatingIfNeeded: parsed.data.count)
        }
        tpdu.removeSubrange(parsed.data.upperBound...)
        tpdu.replaceSubrange(4..<parsed.data.lowerBound, with: CollectionOfOne(p3))
        return send(tpdu)
    }

    /// Feeds the card's answer to the TPDU last sent.
    public mutating func receive(_ answer: [UInt8]) -> T0HostAction {
        guard answer.count >= 2 else {
            stage = .idle
            return .failed(.answerTooShort(instruction: instruction, length: answer.count))
        }
        let sw1 = answer[answer.count - 2]
        let sw2 = answer[answer.count - 1]
        let statusWord = UInt16(sw1) << 8 | UInt16(sw2)
        switch stage {
        case .idle:
            return .failed(.answerTooShort(instruction: instruction, length: 0))
        case .envelope(let remaining):
            guard !remaining.isEmpty else {
                stage = .awaitingAnswer
                return receive(answer)
            }
            guard statusWord == 0x9000 else {
                stage = .idle
                // Only a refusal of ENVELOPE itself means T=0 cannot carry the command.
                if envelopePartsSent == 1, [0x6D00, 0x6E00, 0x6884].contains(statusWord) {
                    return .failed(.envelopeRefused(instruction: instruction, statusWord: statusWord))
                }
                return .completed(answer)
            }
            stage = .envelope(remaining: Array(remaining.dropFirst()))
            envelopePartsSent += 1
            return send(remaining[0])
        case .awaitingAnswer:
            break
        }
        if sw1 == 0x6C, expectedLength != nil, !inFlightHasData {
            // The card discards the data of a wrong-length answer; only P3 changes.
            guard leCorrections < limits.maxLeCorrections else {
                stage = .idle
                return .failed(
                    .leCorrectionsExceeded(
                        limit: max(limits.maxLeCorrections, 0), instruction: instruction,
                        statusWord: statusWord))
            }
            leCorrections += 1
            let (cla, ins, p1, p2) = inFlightHeader
            return send(Self.tpdu(cla, ins, p1, p2, sw2))
        }
        let dataLength = answer.count - 2
        guard gathered.count + dataLength + 2 <= limits.maxResponseLength else {
            stage = .idle
            return .failed(
                .responseTooLong(
                    length: gathered.count + dataLength + 2, maximum: limits.maxResponseLength,
                    instruction: instruction))
        }
        if sw1 == 0x61, let expected = expectedLength, gathered.count + dataLength < expected {
            guard getResponseRounds < limits.maxGetResponseRounds else {
                stage = .idle
                return .failed(
                    .getResponseRoundsExceeded(
                        limit: max(limits.maxGetResponseRounds, 0), instruction: instruction,
                        statusWord: statusWord))
            }
            gathered += answer[..<dataLength]
            getResponseRounds += 1
            leCorrections = 0
            let announced = sw2 == 0 ? 256 : Int(sw2)
            let wanted = min(announced, expected - gathered.count)
            let p3: UInt8 = wanted >= 256 ? 0 : UInt8(wanted)
            return send(Self.tpdu(Self.getResponseClass(for: commandClass), 0xC0, 0x00, 0x00, p3))
        }
        stage = .idle
        // The response is the data gathered so far, this answer's data and its SW1 SW2: the
        // answer itself when nothing came before it (a single TPDU, or 61xx without data).
        guard !gathered.isEmpty else { return .completed(answer) }
        gathered += answer
        return .completed(gathered)
    }

    private mutating func send(_ tpdu: consuming [UInt8]) -> T0HostAction {
        // Every TPDU has its 5-byte header.
        inFlightHeader = (tpdu[0], tpdu[1], tpdu[2], tpdu[3])
        inFlightHasData = tpdu.count > 5
        return .send(tpdu)
    }

    /// A TPDU without data, with room for the CCID header in front of it (the driver frames a
    /// TPDU in its own storage).
    private static func tpdu(_ cla: UInt8, _ ins: UInt8, _ p1: UInt8, _ p2: UInt8, _ p3: UInt8) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(ccidHeaderLength + 5)
        bytes += [cla, ins, p1, p2, p3]
        return bytes
    }

    /// The CLA of GET RESPONSE after a command of class `cla` (ISO/IEC 7816-4 §5.4.1): an
    /// interindustry class keeps its logical channel and secure messaging bits and loses the
    /// chaining bit; any other class gets 00.
    public static func getResponseClass(for cla: UInt8) -> UInt8 {
        switch cla {
        case 0x00...0x1F: cla & 0x0F
        case 0x40...0x7F: cla & 0xEF
        default: 0x00
        }
    }

    /// The CLA of an ENVELOPE part: the command's interindustry logical channel (first
    /// interindustry classes only), with the command chaining bit on all parts but the last.
    static func envelopeClass(for cla: UInt8, chained: Bool) -> UInt8 {
        let channel: UInt8 = cla <= 0x1F ? cla & 0x03 : 0x00
        return channel | (chained ? 0x10 : 0x00)
    }
}

/// Where a command APDU's data lies and its Ne (ISO/IEC 7816-4 §5.1), short or extended; the
/// header is the APDU's first four bytes. Positions only: nothing is copied.
private struct ParsedCommand {
    /// The command data's positions in the APDU (empty, at the end of the length fields, for
    /// cases 1 and 2).
    let data: Range<Int>
    let expectedLength: Int?

    init?(_ apdu: borrowing [UInt8]) {
        guard apdu.count >= 4 else { return nil }
        let n = apdu.count
        if n == 4 { data = 4..<4; expectedLength = nil; return }
        let b5 = Int(apdu[4])
        if n == 5 { data = 5..<5; expectedLength = b5 == 0 ? 256 : b5; return }
        if b5 != 0 {
            if n == 5 + b5 { data = 5..<n; expectedLength = nil; return }
            if n == 6 + b5 {
                let le = Int(apdu[n - 1])
                data = 5..<(n - 1); expectedLength = le == 0 ? 256 : le
                return
            }
            return nil
        }
        guard n >= 7 else { return nil }
        let first = Int(apdu[5]) << 8 | Int(apdu[6])
        if n == 7 { data = 7..<7; expectedLength = first == 0 ? 65_536 : first; return }
        guard first != 0 else { return nil }
        if n == 7 + first { data = 7..<n; expectedLength = nil; return }
        if n == 9 + first {
            let le = Int(apdu[n - 2]) << 8 | Int(apdu[n - 1])
            data = 7..<(n - 2); expectedLength = le == 0 ? 65_536 : le
            return
        }
        return nil
    }
}
