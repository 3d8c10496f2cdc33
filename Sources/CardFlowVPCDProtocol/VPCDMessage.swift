/// A message from the reader (vpcd) side to the card (vicc) side.
///
/// On the wire every message, in both directions, is a 2-byte big-endian length followed by that
/// many bytes (see ``VPCDFrameDecoder`` and ``VPCDFrameEncoder``). From the reader side a 1-byte
/// payload is a control message and a longer one is a command APDU. The card side answers
/// ``getATR`` with the ATR and ``command(_:)`` with the response APDU, each as one message; the
/// other control messages get no answer.
///
/// ```swift
/// VPCDMessage.powerOn.payload                     // [0x01]
/// try VPCDMessage(payload: [0x00, 0xA4, 0x04, 0x00]) // .command([0x00, 0xA4, 0x04, 0x00])
/// ```
public enum VPCDMessage: Sendable, Hashable {
    /// `00`: cut the card's power.
    case powerOff
    /// `01`: power the card.
    case powerOn
    /// `02`: reset the card (warm reset).
    case reset
    /// `04`: ask for the ATR.
    case getATR
    /// A control byte this implementation does not know (vicc logs and ignores these).
    case unknownControl(UInt8)
    /// A command APDU (at least 2 bytes, so it cannot be mistaken for a control message).
    case command([UInt8])

    /// Reads a payload received from the reader side.
    ///
    /// - Throws: ``VPCDError/emptyMessage`` for an empty payload.
    public init(payload: [UInt8]) throws(VPCDError) {
        switch payload.count {
        case 0: throw .emptyMessage
        case 1:
            switch payload[0] {
            case 0x00: self = .powerOff
            case 0x01: self = .powerOn
            case 0x02: self = .reset
            case 0x04: self = .getATR
            default: self = .unknownControl(payload[0])
            }
        default: self = .command(payload)
        }
    }

    /// The payload bytes, without the length prefix.
    public var payload: [UInt8] {
        switch self {
        case .powerOff: [0x00]
        case .powerOn: [0x01]
        case .reset: [0x02]
        case .getATR: [0x04]
        case .unknownControl(let byte): [byte]
        case .command(let apdu): apdu
        }
    }

    /// Whether the card side answers this message with one message.
    public var expectsAnswer: Bool {
        switch self {
        case .getATR, .command: true
        case .powerOff, .powerOn, .reset, .unknownControl: false
        }
    }
}
