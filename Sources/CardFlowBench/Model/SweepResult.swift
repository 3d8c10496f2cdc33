/// Round-trip time as the command's data and the answer's data grow, and the line fitted
/// through it: `time = fixed + perCommandByte × command data bytes + perResponseByte × answer bytes`.
public struct SweepResult: Sendable, Hashable, Codable {
    /// How sizes were produced (``SweepProbeKind`` raw value) and the APDUs, in words.
    public var probe: String
    public var probeDescription: String
    /// Samples per size after warm-up (the median of them is the point's value).
    public var samplesPerPoint: Int
    public var points: [SweepPoint]
    public var fit: SweepFit?

    public init(probe: String, probeDescription: String, samplesPerPoint: Int, points: [SweepPoint], fit: SweepFit?) {
        self.probe = probe
        self.probeDescription = probeDescription
        self.samplesPerPoint = samplesPerPoint
        self.points = points
        self.fit = fit
    }
}

/// Which size grows at a sweep point.
public enum SweepDirection: String, Sendable, Hashable, Codable {
    /// Command data grows, the answer is a status word.
    case command
    /// Answer data grows, the command has no data.
    case response
}

/// One size of a sweep.
public struct SweepPoint: Sendable, Hashable, Codable {
    public var direction: SweepDirection
    /// Data bytes in the command (Lc) and in the answer (without the status word).
    public var commandDataLength: Int
    public var responseDataLength: Int
    /// Whole APDU lengths on the wire (header, length fields, status word included).
    public var commandLength: Int
    public var responseLength: Int
    /// Whether the command used extended length fields.
    public var extended: Bool
    public var samples: Int
    public var medianNs: Int64
    public var p10Ns: Int64
    public var p90Ns: Int64
    public var minNs: Int64

    public init(
        direction: SweepDirection, commandDataLength: Int, responseDataLength: Int, commandLength: Int,
        responseLength: Int, extended: Bool, samples: Int, medianNs: Int64, p10Ns: Int64, p90Ns: Int64, minNs: Int64
    ) {
        self.direction = direction
        self.commandDataLength = commandDataLength
        self.responseDataLength = responseDataLength
        self.commandLength = commandLength
        self.responseLength = responseLength
        self.extended = extended
        self.samples = samples
        self.medianNs = medianNs
        self.p10Ns = p10Ns
        self.p90Ns = p90Ns
        self.minNs = minNs
    }
}

/// The least-squares line through a sweep's medians.
public struct SweepFit: Sendable, Hashable, Codable {
    /// The time of an APDU with no data either way: USB round trip(s), reader firmware, RF
    /// frame overhead, the card's own time for the probe command.
    public var fixedNs: Double
    /// Cost of one more byte of command data (USB out, reader to card over RF or contact).
    public var perCommandByteNs: Double
    /// Cost of one more byte of answer data.
    public var perResponseByteNs: Double
    /// Coefficient of determination of the fit (1 = every median on the line).
    public var rSquared: Double
    /// The largest distance of a median from the line, in nanoseconds.
    public var maxResidualNs: Double
    /// What the per-byte costs mean as a line rate: 8 bits / cost, in kbit/s (an ISO 14443 link
    /// spends 9 etu per byte plus framing; a card at 106 kbit/s shows about 94 kbit/s here).
    public var commandKilobitsPerSecond: Double?
    public var responseKilobitsPerSecond: Double?

    public init(
        fixedNs: Double, perCommandByteNs: Double, perResponseByteNs: Double, rSquared: Double, maxResidualNs: Double
    ) {
        self.fixedNs = fixedNs
        self.perCommandByteNs = perCommandByteNs
        self.perResponseByteNs = perResponseByteNs
        self.rSquared = rSquared
        self.maxResidualNs = maxResidualNs
        self.commandKilobitsPerSecond = perCommandByteNs > 0 ? 8e6 / perCommandByteNs : nil
        self.responseKilobitsPerSecond = perResponseByteNs > 0 ? 8e6 / perResponseByteNs : nil
    }
}
