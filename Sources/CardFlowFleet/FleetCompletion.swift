import Foundation

/// How one claim ended, as a host reports it to the store (``FleetQueue/complete(_:)``).
public struct FleetCompletion: Sendable, Hashable {
    /// The claimed record.
    public var recordID: Int64
    /// The claim's fencing token.
    public var token: UUID
    /// Done or failed.
    public var state: FleetCompletionState
    /// A JSON object (UTF-8) with what the card got, or nil.
    public var result: [UInt8]?
    /// Why the flow failed, or nil.
    public var error: String?

    /// A completion of the claim on `recordID` with `token`.
    public init(recordID: Int64, token: UUID, state: FleetCompletionState, result: [UInt8]?, error: String?) {
        self.recordID = recordID
        self.token = token
        self.state = state
        self.result = result
        self.error = error
    }
}
