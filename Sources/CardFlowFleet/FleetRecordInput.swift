/// One record to import: a reference unique in its batch and the flow parameters (a JSON object).
///
/// Parameters name keys by key-store slot or diversification input only: names that look like
/// key material (`key`, `pin`, `secret`, `password`… other than `…Slot`) are refused at import.
public struct FleetRecordInput: Sendable, Hashable {
    public var reference: String
    /// A JSON object, as UTF-8.
    public var parameters: [UInt8]

    public init(reference: String, parameters: [UInt8]) {
        self.reference = reference
        self.parameters = parameters
    }
}
