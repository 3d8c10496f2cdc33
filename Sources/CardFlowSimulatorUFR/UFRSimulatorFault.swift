/// Ways the simulated uFR reader misbehaves, for the backend's tests: each must end in a typed
/// error within the backend's deadline, never in a hang or a wrong answer.
public enum UFRSimulatorFault: Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// Every answer's last byte is wrong (a packet or EXT checksum that does not check).
    case badChecksums
    /// Answers are cut after their first 4 bytes.
    case shortFrames
    /// Commands are read and never answered.
    case silence
    /// RSP packets announce 3 EXT bytes more than follow.
    case wrongLengths

    public var description: String {
        switch self {
        case .badChecksums: "bad checksums"
        case .shortFrames: "short frames"
        case .silence: "silence"
        case .wrongLengths: "wrong lengths"
        }
    }
}
