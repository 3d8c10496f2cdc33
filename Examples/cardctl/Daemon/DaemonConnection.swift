import CardFlow
import CardFlowDaemonControl
import Foundation

/// Requests to a running cardd over its control socket (`--socket PATH`).
enum DaemonConnection {
    /// Sends one request and returns its final answer's `result`; an error answer becomes a
    /// ``DaemonRequestError``. `onLine` sees streamed lines (job events).
    static func request(
        socket: String, _ request: JSONValue,
        onLine: @Sendable (JSONValue) async -> Void = { _ in }
    ) async throws -> JSONValue {
        let client = try await ControlClient.connect(path: socket)
        defer { Task { await client.close() } }
        let answer = try await client.request(request, onLine: onLine)
        guard answer["ok"] == .bool(true) else {
            throw DaemonRequestError(
                code: answer["error"]?["code"]?.stringValue ?? "unknown",
                message: answer["error"]?["message"]?.stringValue ?? answer.jsonLine())
        }
        return answer["result"] ?? .null
    }

    /// Pretty JSON for --json output.
    static func pretty(_ value: JSONValue) -> String {
        value.prettyJSON()
    }
}

/// cardd answered a request with an error.
struct DaemonRequestError: CategorizedError, CustomStringConvertible {
    let code: String
    let message: String
    /// What the request got wrong: usage; cardd failing: the reader category.
    var category: ErrorCategory {
        ["badRequest", "badJSON", "unknownOp", "unknownJob", "lineTooLong"].contains(code) ? .usage : .reader
    }
    var description: String { "cardd: \(message) (\(code))" }
}
