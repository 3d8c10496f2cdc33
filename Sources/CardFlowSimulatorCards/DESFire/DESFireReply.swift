/// What a command handler answers on success, before secure messaging and frame splitting.
struct DESFireReply: Sendable {
    /// Protection the response gets in a session.
    enum Protection: Sendable, Hashable {
        /// No secure messaging at all (SelectApplication; session already closed).
        case none
        /// EV1: CMAC appended; legacy: nothing; EV2: MACt appended (commands other than file data
        /// run in CommMode.MAC in an EV2 session).
        case plain
        /// File data in CommMode.Plain: as ``plain`` in EV1 and legacy sessions; bare in EV2 (the
        /// command counter still moves).
        case plainData
        /// EV1: CMAC appended; legacy: 4-byte MAC over the data appended.
        case mac
        /// Data enciphered with its CRC.
        case enciphered
    }

    var data: [UInt8] = []
    var protection: Protection = .plain
    /// Sizes of the leading frames for commands with a fixed frame layout (GetVersion, GetDFNames);
    /// the rest goes into the last frame. `nil`: split into frames of at most 59 bytes.
    var frameSizes: [Int]?
    /// A command that needs more frames from the host (`91 AF` without data).
    var needsMoreData: Int?
    /// Answer `data 91 AF`: the command continues with the host's next frame (authentication).
    var expectsAdditionalFrame = false

    static let ok = DESFireReply()
}
