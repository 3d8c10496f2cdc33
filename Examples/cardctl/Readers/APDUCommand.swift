import ArgumentParser
import CardFlow
import CardFlowDaemonControl
import Foundation

/// `cardctl apdu HEX...`: sends APDUs in one session and prints the answers.
struct APDUCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "apdu",
        abstract: "Send command APDUs (hex) to the card in one session and print each answer.",
        discussion: """
            Exit status is 0 whenever the card answered, whatever the status word, unless --expect-sw says otherwise.
            The APDUs run as a flow: with --wait MS, a card lifted mid-command is waited for and, when the same card
            is back, the interrupted APDU is sent again (another card is reported and left alone).
            """)

    @OptionGroup(title: "Global Options") var global: GlobalOptions

    @Option(
        name: .customLong("expect-sw"),
        help: ArgumentHelp("Fail (exit 1) when an answer has another status word.", valueName: "SW"))
    var expectedStatus: String?

    @Flag(name: .long, help: "Do not follow 61xx with GET RESPONSE nor re-issue on 6Cxx.")
    var raw = false

    @Option(
        name: .long, help: ArgumentHelp("Send the list of APDUs this many times in the same session.", valueName: "N"))
    var `repeat`: Int = 1

    @Argument(help: ArgumentHelp("Command APDUs in hex (spaces allowed inside a quoted argument).", valueName: "HEX"))
    var apdus: [String]

    struct Answer: Encodable, Sendable {
        let command: String
        let data: String
        let sw: String
        let meaning: String?
    }

    func validate() throws {
        guard `repeat` >= 1 else { throw ValidationError("--repeat must be 1 or more") }
    }

    func run() async throws {
        guard !apdus.isEmpty else { throw InputError(description: "give at least one APDU in hex") }
        let commands = try apdus.map { text in try CommandAPDU(hex: text) }
        let expected = try expectedStatus.map { text in
            guard let value = UInt16(text, radix: 16), text.count == 4 else {
                throw InputError(description: "--expect-sw takes four hex digits, like 9000; got '\(text)'")
            }
            return StatusWord(value)
        }
        if let socket = global.socket {
            try await runThroughDaemon(socket: socket, commands: commands, expected: expected)
            return
        }
        let logger = CommandLogging.logger(trace: global.trace)
        let connection = try await ReaderConnection.open(global, logger: logger, traceToStandardError: global.json)
        let reader = try connection.primary
        let answers = AnswerLog()
        let flow = makeFlow(commands, repeating: `repeat`, expected: expected, answers: answers)
        let run = reader.run(flow, policy: global.policy(for: reader))
        // Recovery events always go to stderr (unless --json); with --trace, every event.
        let progress = Task { [json = global.json, trace = global.trace] in
            await FlowProgressView.show(run.progress, trace: trace, json: json, bar: false)
        }
        var failure: (any Error)?
        do { try await run.value } catch { failure = error }
        await progress.value
        try await connection.close()
        if global.json {
            try Output.sortedJSON(await answers.all, escapingSlashes: true)
        }
        if let failure { throw (failure as? FlowError)?.underlying ?? failure }
    }

    /// `--socket`: the APDUs run as a cardd job on the reader `--reader` names in cardd's list
    /// (`sim:0`, `usb:1:4:0`), and the job's record comes back.
    private func runThroughDaemon(socket: String, commands: [CommandAPDU], expected: StatusWord?) async throws {
        let sequence = Array(repeating: commands, count: `repeat`).flatMap { $0 }
        var request: [String: JSONValue] = [
            "op": "apdu", "reader": .string(try global.daemonReaderID()), "follow": .bool(true),
            "apdus": .array(sequence.map { .string($0.encoded().hexString) }),
        ]
        if let expected { request["expect"] = .string(expected.hexString) }
        let json = global.json
        let record = try await DaemonConnection.request(socket: socket, .object(request)) { line in
            guard !json, let event = line["event"], event["event"] == "jobProgress",
                let kind = event["kind"]?.stringValue,
                ["waitingForCard", "cardLost", "wrongCard", "resumed", "retrying"].contains(kind)
            else { return }
            Output.standardError("cardctl: \(event["detail"]?.stringValue ?? kind)")
        }
        if json {
            Output.standardOutput(DaemonConnection.pretty(record))
        } else {
            let responses = record["outcome"]?["values"]?["responses"]?.stringValue ?? ""
            for response in responses.split(separator: " ") {
                let bytes = try [UInt8](hex: String(response))
                let data = bytes.dropLast(2).hexString
                let sw = bytes.suffix(2).hexString
                Output.standardOutput(data.isEmpty ? sw : "\(data) \(sw)")
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

    /// One flow step per APDU (and repetition): each prints its answer as soon as it has it.
    private func makeFlow(
        _ commands: [CommandAPDU], repeating count: Int, expected: StatusWord?,
        answers: AnswerLog
    ) -> Flow<Void> {
        let sequence = Array(repeating: commands, count: count).flatMap { $0 }
        let json = global.json
        let raw = self.raw
        @Sendable func exchange(_ command: CommandAPDU, _ session: CardSession) async throws {
            let channel: any CardChannel = session
            let response = raw ? try await channel.transmit(command) : try await channel.send(command, policy: .default)
            let answer = Answer(
                command: command.encoded().hexString, data: response.data.hexString,
                sw: response.statusWord.hexString, meaning: response.statusWord.meaning)
            await answers.append(answer)
            if command.ins == 0xA4, response.statusWord.isSuccess {
                // A card that comes back after being lifted gets this selection again.
                await session.onReconnect(key: "selection") { session in _ = try await session.send(command) }
            }
            if !json { Output.standardOutput(answer.data.isEmpty ? answer.sw : "\(answer.data) \(answer.sw)") }
            if let expected, response.statusWord != expected {
                throw ExpectedStatusMismatch(expected: expected, received: response.statusWord, command: command)
            }
        }
        return Flow.start("APDU 1") { session in try await exchange(sequence[0], session) }
            .then(forEach: Array(sequence.dropFirst()), name: { index, _ in "APDU \(index + 2)" }) {
                _, command, session in
                try await exchange(command, session)
            }
    }
}

/// Answers in order, for --json.
actor AnswerLog {
    private(set) var all: [APDUCommand.Answer] = []
    func append(_ answer: APDUCommand.Answer) { all.append(answer) }
}
