/// What `cardctl bench --json` prints and `--report` draws: every run of one command, with the
/// machine it ran on. Its JSON form is a stable schema (`docs/bench-json-schema.md`): fields
/// are added, never renamed or removed, within one ``schema`` version; times are integer
/// nanoseconds in fields ending in `Ns`.
///
/// ```swift
/// let document = BenchDocument(
///     command: ["bench", "latency"], seed: 1, machine: machine, runs: [run],
///     cardflowVersion: CardFlowVersion.current, generatedAt: "2026-11-26T12:00:00Z")
/// let json = try JSONEncoder().encode(document)
/// print(BenchTextRenderer.render(document))
/// ```
public struct BenchDocument: Sendable, Hashable, Codable {
    /// `"cardflow-bench/1"`: the name and major version of the schema.
    public var schema: String
    /// The CardFlow release that measured.
    public var cardflowVersion: String
    /// When the document was written, as ISO 8601 UTC text.
    public var generatedAt: String
    /// The command line after `cardctl` (so a run can be repeated).
    public var command: [String]
    /// The seed that generated command data (`--seed`), so a run can be repeated byte for byte.
    public var seed: UInt64
    /// Where it ran.
    public var machine: BenchMachine
    /// One run per reader and test (a comparison is one run with two sides).
    public var runs: [BenchRun]

    /// The schema this version of CardFlow writes.
    public static let currentSchema = "cardflow-bench/1"

    /// A document of the current schema.
    ///
    /// - Parameters:
    ///   - command: the command line after `cardctl`.
    ///   - seed: the seed of generated data.
    ///   - machine: where it ran.
    ///   - runs: what was measured.
    ///   - cardflowVersion: the release that measured.
    ///   - generatedAt: the time of writing, ISO 8601 UTC.
    public init(
        command: [String], seed: UInt64, machine: BenchMachine, runs: [BenchRun], cardflowVersion: String,
        generatedAt: String
    ) {
        self.schema = Self.currentSchema
        self.cardflowVersion = cardflowVersion
        self.generatedAt = generatedAt
        self.command = command
        self.seed = seed
        self.machine = machine
        self.runs = runs
    }
}

/// One measurement on one reader: a latency run, a size sweep, per-operation timings or a
/// comparison of two paths to the same reader.
public struct BenchRun: Sendable, Hashable, Codable {
    /// What was measured.
    public enum Kind: String, Sendable, Hashable, Codable {
        case latency, sweep, operations, comparison
    }

    public var kind: Kind
    /// The reader (for a comparison: the first side's; each side carries its own).
    public var reader: BenchReaderIdentity
    /// The card as the reader saw it.
    public var card: BenchCardIdentity?
    /// How time was measured: `"monotonic"` (the system's monotonic clock) or `"virtual"` (a
    /// simulator's discrete-event time: the model's time, with no host time in it).
    public var clock: String
    /// How the samples were taken, in words (closed loop, warm-up, minimum duration).
    public var method: String
    /// Whether Ctrl-C (or a failure) ended the run before its planned end: what is here is what
    /// was measured until then.
    public var interrupted: Bool
    /// Why the run ended early, when ``interrupted``.
    public var interruption: String?
    /// Why the run counts as failed although it ended: it measured nothing
    /// (``measuredNothingReason``); nil for a run with results.
    public var failure: String?
    public var latency: LatencyResult?
    public var sweep: SweepResult?
    public var operations: OperationsResult?
    public var comparison: ComparisonResult?

    /// A run with no result yet.
    ///
    /// - Parameters:
    ///   - kind: what is measured.
    ///   - reader: the reader measured.
    ///   - card: the card on it.
    ///   - clock: `"monotonic"` or `"virtual"`.
    ///   - method: how samples are taken, in words.
    public init(kind: Kind, reader: BenchReaderIdentity, card: BenchCardIdentity?, clock: String, method: String) {
        self.kind = kind
        self.reader = reader
        self.card = card
        self.clock = clock
        self.method = method
        self.interrupted = false
    }
}
