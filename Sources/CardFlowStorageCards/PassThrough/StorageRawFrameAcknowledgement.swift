/// A card's answer to a command it acknowledges (a Type 2 WRITE or COMPATIBILITY_WRITE), as
/// ``StorageRawFrameTransport/transceiveAcknowledged(_:redact:command:)`` returns it.
public enum StorageRawFrameAcknowledgement: Sendable, Hashable, CustomStringConvertible {
    /// The 4-bit ACK (`A`).
    case ack
    /// A 4-bit NAK; nil where the reader does not pass its value on (the PN532's status `14`).
    case nak(UInt8?)

    public var description: String {
        switch self {
        case .ack: "ACK"
        case .nak(let code): code.map { "NAK \(String($0, radix: 16))" } ?? "NAK"
        }
    }
}
