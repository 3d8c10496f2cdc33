/// What a finished job reports: a few named values (never secrets), e.g. `uid`, `atr`,
/// `message`, `responses`.
public struct JobOutcome: Sendable, Hashable, Codable {
    public var values: [String: String]

    public init(_ values: [String: String] = [:]) {
        self.values = values
    }
}
