/// What a replay check found: each operation with both outcomes, and what the replay reader saw.
public struct TranscriptReplayReport: Sendable, Hashable {
    /// One operation of the log, with how it ended there and with CardFlow's driver.
    public struct Result: Sendable, Hashable, CustomStringConvertible {
        /// The operation and its recorded outcome.
        public let operation: TranscriptOperation
        /// How it ended with CardFlow's driver.
        public let outcome: TranscriptOutcome

        /// True when both ended alike, or the recording cannot say how it ended.
        public var agrees: Bool { operation.recordedOutcome == .unknown || operation.recordedOutcome == outcome }

        public var description: String {
            "\(operation) | CardFlow: \(outcome)\(agrees ? "" : "  <-- differs")"
        }
    }

    /// The operations in log order.
    public let results: [Result]
    /// Commands of the driver the recording did not accept.
    public let mismatches: [ReplayMismatch]
    /// How many of the driver's commands matched a recorded one.
    public let matchedCommands: Int
    /// The stand-in rules the replay used.
    public let standIns: [ReplayStandIn]

    /// True when every operation agrees and the recording accepted every command.
    public var isIdentical: Bool { mismatches.isEmpty && results.allSatisfy(\.agrees) }
}
