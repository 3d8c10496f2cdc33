/// Errors of the CCID driver layer. Each says which message failed and why.
public enum CCIDDriverError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The USB transport failed (timeout, stall, unplug, cancellation…).
    case transport(USBTransportError, during: CCIDMessageType)
    /// The reader sent bytes that are not a valid CCID message.
    case malformedResponse(CCIDFrameError, during: CCIDMessageType)
    /// The reader kept answering with the wrong bSeq (or bSlot); frames were discarded.
    case sequenceMismatch(expected: UInt8, received: UInt8, during: CCIDMessageType)
    /// The reader answered with a message type that does not belong to the command.
    case unexpectedResponse(CCIDMessageType, during: CCIDMessageType)
    /// The reader reported a failed command.
    case slotError(CCIDSlotError, state: CCIDSlotState, during: CCIDMessageType)
    /// No card in the slot (or, contactless, no tag in the field).
    case noCard
    /// The card is present but did not answer (ICC_MUTE with a card present).
    case cardMute(during: CCIDMessageType)
    /// The command does not fit the reader's exchange level or message size.
    case commandTooLong(length: Int, maximum: Int)
    /// The response exceeded the size this driver accepts.
    case responseTooLong(length: Int, maximum: Int)
    /// The reader asked for more time more often than the configured cap allows.
    case timeExtensionLimitExceeded(count: Int, during: CCIDMessageType)
    /// One operation took longer than ``CCIDDriverConfiguration/exchangeTimeLimit`` (a reader or
    /// card kept asking for more time); the command was aborted.
    case exchangeTimeLimitExceeded(limit: Duration, during: CCIDMessageType)
    /// Extended-APDU chaining went wrong (the reader broke the wLevelParameter/bChainParameter rules).
    case chainingViolation(String)
    /// The T=1 block protocol failed beyond recovery; the card must be reset.
    case t1Failure(String)
    /// The card's T=1 blocks, valid as blocks, carried a response of `length` bytes: less than
    /// SW1 SW2, so no response APDU. A block whose LEN was spoiled on the line can pass the EDC
    /// by chance (an LRC more easily than a CRC), leaving such a stub; the exchange is over and
    /// the next command may follow.
    case responseTooShort(length: Int)
    /// The card's ATR cannot be used (contact readers need it to choose protocol and speed).
    case invalidATR(ATRParseError)
    /// Card and reader cannot agree on a protocol or speed (or not on the requested one).
    case protocolSelection(ProtocolSelectionError)
    /// The card refused every PPS request the driver could fall back to (`request` is the last
    /// one sent, `answer` the card's answer, empty when it was mute).
    case ppsFailed(request: [UInt8], answer: [UInt8], reason: String)
    /// The T=0 exchange failed (bounds, malformed command or answer).
    case t0Failure(T0ProtocolError)
    /// An extended-length command (data over 255 bytes) cannot travel over T=0 to this card:
    /// it refused ENVELOPE. It needs T=1 or a reader that takes extended APDUs.
    case extendedLengthNeedsT1(instruction: UInt8, statusWord: UInt16)
    /// A character-level exchange failed: the reader returned the wrong number of bytes, or the
    /// card broke T=0 (`command` is the TPDU, T=1 block or PPS request being carried; empty
    /// while reading the ATR).
    case characterLevel(CharacterLevelError, command: [UInt8])
    /// This reader or card cannot be driven (T=0 on a reader without it…).
    case unsupportedReader(String)
    /// The slot index does not exist on this reader.
    case noSuchSlot(UInt8, slotCount: Int)
    /// The card was not powered on before an exchange.
    case cardNotPowered(slot: UInt8)

    public var description: String {
        switch self {
        case .transport(let error, let type): "\(error) (during \(type))"
        case .malformedResponse(let error, let type): "malformed reader response to \(type): \(error)"
        case .sequenceMismatch(let expected, let received, let type):
            "reader answered \(type) with bSeq 0x\(hex2(received)), expected 0x\(hex2(expected))"
        case .unexpectedResponse(let got, let type): "reader answered \(type) with \(got)"
        case .slotError(let error, let state, let type): "reader failed \(type): \(error), \(state)"
        case .noCard: "no card in the reader"
        case .cardMute(let type): "the card did not answer (\(type))"
        case .commandTooLong(let length, let maximum):
            "command of \(length) bytes exceeds the reader's limit of \(maximum)"
        case .responseTooLong(let length, let maximum): "response of \(length) bytes exceeds the limit of \(maximum)"
        case .timeExtensionLimitExceeded(let count, let type):
            "reader requested \(count) time extensions for \(type); giving up"
        case .exchangeTimeLimitExceeded(let limit, let type):
            "\(type) did not complete within the exchange time limit of \(limit); the command was aborted"
        case .chainingViolation(let detail): "extended APDU chaining failed: \(detail)"
        case .t1Failure(let detail): "T=1 protocol failure: \(detail)"
        case .responseTooShort(let length): "the card's T=1 response has \(length) byte(s), no SW1 SW2"
        case .invalidATR(let error): "invalid ATR: \(error)"
        case .protocolSelection(let error): "protocol selection failed: \(error)"
        case .ppsFailed(let request, let answer, let reason):
            "PPS exchange failed (sent \(request.map(hex2).joined(separator: " ")), card answered "
                + "\(answer.isEmpty ? "nothing" : answer.map(hex2).joined(separator: " "))): \(reason)"
        case .t0Failure(let error): "T=0 protocol failure: \(error)"
        case .extendedLengthNeedsT1(let ins, let sw):
            "INS 0x\(hex2(ins)): command data over 255 bytes needs T=1 or an extended-APDU reader; "
                + "the card refused ENVELOPE over T=0 (SW \(hex4(sw)))"
        case .characterLevel(let error, let command):
            "character-level exchange failed: \(error)"
                + (command.isEmpty
                    ? ""
                    : " (sending \(command.prefix(5).map(hex2).joined(separator: " "))\(command.count > 5 ? " …" : ""))")
        case .unsupportedReader(let detail): "unsupported reader: \(detail)"
        case .noSuchSlot(let slot, let count): "slot \(slot) does not exist (reader has \(count))"
        case .cardNotPowered(let slot): "the card in slot \(slot) is not powered on"
        }
    }

    /// True when the error means the card is gone from the reader.
    public var isCardRemoved: Bool {
        switch self {
        case .noCard: true
        default: false
        }
    }
}
