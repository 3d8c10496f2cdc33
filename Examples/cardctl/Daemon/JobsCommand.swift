import ArgumentParser
import CardFlowDaemonControl
import Foundation

/// `cardctl jobs`: the job log of a running cardd, through its control socket.
struct JobsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "jobs",
        abstract: "List the jobs a running cardd has logged (needs --socket, or cardd's default socket).",
        discussion: "With --job N, one job with every event it logged.")

    @OptionGroup(title: "Global Options") var global: GlobalOptions

    @Option(name: .long, help: "How many of the newest jobs to list.")
    var limit = 50

    @Option(name: .long, help: ArgumentHelp("Show one job and its events.", valueName: "N"))
    var job: Int?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Cancel a running job: its APDU in flight is aborted, the card powered off.",
            valueName: "N"))
    var cancel: Int?

    func validate() throws {
        guard (1...10_000).contains(limit) else { throw ValidationError("--limit must be 1 to 10000") }
    }

    func run() async throws {
        let socket = global.socket ?? ControlSocketPath.forCurrentUser()
        if let cancel {
            let answer = try await DaemonConnection.request(
                socket: socket, ["op": "cancel", "job": .number(Double(cancel))])
            Output.standardOutput(global.json ? DaemonConnection.pretty(answer) : "job \(cancel) cancelled")
            return
        }
        if let job {
            let record = try await DaemonConnection.request(socket: socket, ["op": "job", "job": .number(Double(job))])
            if global.json { Output.standardOutput(DaemonConnection.pretty(record)); return }
            Output.standardOutput(Self.line(record))
            if case .array(let events)? = record["events"] {
                for event in events {
                    Output.standardOutput(
                        "  \(event["kind"]?.stringValue ?? "?"): \(event["detail"]?.stringValue ?? "")")
                }
            }
            return
        }
        let records = try await DaemonConnection.request(
            socket: socket, ["op": "jobs", "limit": .number(Double(limit))])
        if global.json { Output.standardOutput(DaemonConnection.pretty(records)); return }
        guard case .array(let list) = records else { return }
        if list.isEmpty { Output.standardOutput("no jobs logged yet") }
        for record in list { Output.standardOutput(Self.line(record)) }
    }

    /// `12 succeeded sim:0 ndef-write rule=posters uid=04A1… last=ndef-write`
    static func line(_ record: JSONValue) -> String {
        var parts = [
            record["id"]?.intValue.map(String.init) ?? "?", record["state"]?.stringValue ?? "?",
            record["reader"]?.stringValue ?? "?", record["flow"]?.stringValue ?? "?",
        ]
        if let rule = record["rule"]?.stringValue { parts.append("rule=\(rule)") }
        if let uid = record["cardUID"]?.stringValue { parts.append("uid=\(uid)") }
        if let step = record["lastStep"]?.stringValue { parts.append("last=\(step)") }
        if let error = record["error"]?.stringValue { parts.append("error=\(error)") }
        return parts.joined(separator: " ")
    }
}
