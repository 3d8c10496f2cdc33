/// How one operation ended, at the level a PC/SC caller sees it: the same for pcscd in the log
/// and for CardFlow's driver in the replay, so the two can be compared.
public enum TranscriptOutcome: Sendable, Hashable, CustomStringConvertible {
    /// Bytes came back: the response APDU of a transmit, the ATR of a power-on.
    case bytes([UInt8])
    /// The operation succeeded without bytes to compare (slot status with a card, power-off).
    case done
    /// The slot has no card.
    case noCard
    /// The operation failed with this kind of error.
    case failure(TranscriptFailure.Kind)
    /// The recording cannot say how it ended (the log stops or has a gap there).
    case unknown
    /// CardFlow's driver failed in a way no recorded kind describes (the text says how).
    case otherError(String)

    public var description: String {
        switch self {
        case .bytes(let bytes): bytes.isEmpty ? "no bytes" : bytes.map(hexByte).joined(separator: " ")
        case .done: "done"
        case .noCard: "no card"
        case .failure(let kind): "failure (\(kind.rawValue))"
        case .unknown: "unknown"
        case .otherError(let text): "error: \(text)"
        }
    }
}
