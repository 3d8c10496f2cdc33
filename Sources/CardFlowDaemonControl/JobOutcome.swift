/// What a finished job reports: a few named values (never secrets), e.g. `uid`, `atr`,
/// `message`, `responses`.
public struct JobOutcome: Sendable, Hashable, Codable {
    /// The values by name.
    public var values: [String: String]

    /// An outcome with these values.
    public init(_ values: [String: String] = [:]) {
        self.values = values
    }
}
