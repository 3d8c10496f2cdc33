/// Per-operation timings of a card family's operations (DESFire, TON, NDEF, ISO 15693).
public struct OperationsResult: Sendable, Hashable, Codable {
    /// The card family the operations belong to ("desfire", "ton", "ndef", "iso15693").
    public var family: String
    public var operations: [OperationTiming]
    /// Operations that could not run on this card (missing key, read-only card, no write
    /// allowed), with the reason, so a missing row is explained.
    public var skipped: [SkippedOperation]

    public init(family: String, operations: [OperationTiming], skipped: [SkippedOperation]) {
        self.family = family
        self.operations = operations
        self.skipped = skipped
    }
}

/// Timings of one operation repeated.
public struct OperationTiming: Sendable, Hashable, Codable {
    /// What it does, e.g. "authenticate AES", "read 32 B", "verify PIN + sign".
    public var name: String
    /// DESFire communication mode ("plain", "mac", "full"), where it applies.
    public var commMode: String?
    /// Bytes read or written per operation, where it applies.
    public var bytes: Int?
    /// APDUs one operation exchanges (including GET RESPONSE and 0xAF continuation frames).
    public var apdusPerOperation: Double
    public var statistics: LatencyStatistics
    /// Whether the operation writes to the card.
    public var writes: Bool

    public init(
        name: String, commMode: String?, bytes: Int?, apdusPerOperation: Double, statistics: LatencyStatistics,
        writes: Bool
    ) {
        self.name = name
        self.commMode = commMode
        self.bytes = bytes
        self.apdusPerOperation = apdusPerOperation
        self.statistics = statistics
        self.writes = writes
    }
}

/// An operation that was not measured, and why.
public struct SkippedOperation: Sendable, Hashable, Codable {
    public var name: String
    public var reason: String

    public init(name: String, reason: String) {
        self.name = name
        self.reason = reason
    }
}
