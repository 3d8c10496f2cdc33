import ArgumentParser
import CardFlowDaemonControl
import Foundation

/// `cardctl --socket PATH --reader ID flow JSON`: runs a flow on a reader of a running cardd, as
/// a job (logged, cancellable), with any flow kind its configuration accepts.
struct FlowCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "flow",
        abstract: "Run a flow on a reader of a running cardd (needs --socket, or cardd's default socket).",
        discussion: """
            FLOW is the JSON a cardd rule's "flow" takes, e.g. '{"kind":"ndef-read"}' or \
            '{"kind":"desfire-provision","aid":"010203","file":1,"size":32,"keySlot":1,"text":"hi"}'; \
            keys and secrets come from cardd's key store. --reader names the reader as cardd lists it \
            (cardctl --socket PATH list). Steps and recovery go to stderr; the job's record ends the \
            output (--json: as JSON). Exit status 1 when the job did not succeed.
            """)

    @OptionGroup(title: "Global Options") var global: GlobalOptions

    @Argument(help: ArgumentHelp("The flow, as JSON.", valueName: "FLOW"))
    var flow: String

    @Flag(name: .long, help: "Print the job's id and return without waiting for it.")
    var noFollow = false

    func run() async throws {
        let socket = global.socket ?? ControlSocketPath.forCurrentUser()
        let specification: JSONValue
        do {
            specification = try JSONDecoder().decode(JSONValue.self, from: Data(flow.utf8))
        } catch {
            throw InputError(
                description: "FLOW must be JSON, like '{\"kind\":\"report\"}': \(error.localizedDescription)")
        }
        guard case .object = specification else {
            throw InputError(description: "FLOW must be a JSON object with a \"kind\"")
        }
        let request: JSONValue = [
            "op": "flow", "reader": .string(try global.daemonReaderID()), "flow": specification,
            "follow": .bool(!noFollow),
        ]
        let json = global.json
        let record = try await DaemonConnection.request(socket: socket, request) { line in
            guard !json, let event = line["event"], event["event"] == "jobProgress" else { return }
            Output.standardError("cardctl: \(event["detail"]?.stringValue ?? event["kind"]?.stringValue ?? "")")
        }
        if noFollow {
            Output.standardOutput(json ? DaemonConnection.pretty(record) : "job \(record["job"]?.intValue ?? 0)")
            return
        }
        if json {
            Output.standardOutput(DaemonConnection.pretty(record))
        } else {
            Output.standardOutput(JobsCommand.line(record))
            if case .object(let values)? = record["outcome"]?["values"] {
                for (key, value) in values.sorted(by: { $0.key < $1.key }) {
                    Output.standardOutput("  \(key): \(value.stringValue ?? value.jsonLine())")
                }
            }
        }
        if record["state"] != "succeeded" {
            throw DaemonRequestError(
                code: "jobFailed",
                message:
                    "job \(record["id"]?.intValue ?? 0) \(record["state"]?.stringValue ?? "?"): \(record["error"]?.stringValue ?? "")"
            )
        }
    }
}
