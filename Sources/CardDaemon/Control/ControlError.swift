/// An error answer on the control socket: `{"id":…,"ok":false,"error":{"code":…,"message":…}}`.
public struct ControlError: Error, Sendable, Hashable {
    /// Machine-readable: `badJSON`, `lineTooLong`, `tooDeep`, `tooManyConnections`, `busy`,
    /// `unknownOp`, `badRequest`, `unknownReader`, `unknownJob`, `jobLogUnavailable`, `jobLogCorrupt`, `internal`.
    public var code: String
    public var message: String

    public init(_ code: String, _ message: String) {
        self.code = code
        self.message = message
    }

    var json: JSONValue { ["code": .string(code), "message": .string(message)] }
}
