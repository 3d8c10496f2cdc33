/// What a replay check found: each operation with both outcomes, and what the replay reader saw.
public struct TranscriptReplayReport: Sendable, Hashable {
    /// One operation of the log, with how it ended there and with CardFlow's driver.
    public struct Result: Sendable, Hashable, CustomStringConvertible {
        /// Where the log's application ran T=0's follow-ups (GET RESPONSE after `61xx`, the
        /// command again after `6Cxx`) as APDUs of its own and CardFlow's driver ran them itself.
        public enum T0Transport: Sendable, Hashable {
            /// The recorded answer was `61xx`/`6Cxx`; the driver followed it and its answer is
            /// the recorded answer of the follow-ups (this many operations), data gathered.
            case followedUp(operations: Int)
            /// A follow-up the log's application sent and the driver had already sent itself:
            /// not sent again.
            case sentByDriver
        }

        /// The operation and its recorded outcome.
        public let operation: TranscriptOperation
        /// How it ended with CardFlow's driver.
        public let outcome: TranscriptOutcome
        /// Set where the driver's T=0 transport and the application's follow-ups line up.
        public let t0Transport: T0Transport?

        public init(operation: TranscriptOperation, outcome: TranscriptOutcome, t0Transport: T0Transport? = nil) {
            self.operation = operation
            self.outcome = outcome
            self.t0Transport = t0Transport
        }

        /// True when both ended alike, or the recording cannot say how it ended, or the driver's
        /// T=0 transport did what the application's follow-ups did (checked when lined up).
        public var agrees: Bool {
            t0Transport != nil || operation.recordedOutcome == .unknown || operation.recordedOutcome == outcome
        }

        public var description: String {
            let note: String
            switch t0Transport {
            case .followedUp(let count)?: note = "  (T=0: the driver followed up, as the next \(count) did)"
            case .sentByDriver?: note = "  (T=0: sent by the driver for the APDU before)"
            case nil: note = ""
            }
            return "\(operation) | CardFlow: \(outcome)\(note)\(agrees ? "" : "  <-- differs")"
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
