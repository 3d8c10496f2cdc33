/// An error answer on the control socket: `{"id":…,"ok":false,"error":{"code":…,"message":…}}`.
public struct ControlError: Error, Sendable, Hashable {
    /// Machine-readable: `badJSON`, `lineTooLong`, `tooDeep`, `tooManyConnections`, `busy`,
    /// `unknownOp`, `badRequest`, `unknownReader`, `unknownJob`, `jobLogUnavailable`, `jobLogCorrupt`, `internal`.
    public var code: String
    /// For people: what was wrong.
    public var message: String

    /// An error answer with this code and message.
    public init(_ code: String, _ message: String) {
        self.code = code
        self.message = message
    }

    /// The `error` field of the answer (the server writes it).
    package var json: JSONValue { ["code": .string(code), "message": .string(message)] }
}
