import ArgumentParser
import CardFlow
import CardFlowRelay

/// `cardctl relay`: lets a remote service sync the card over WebSocket (see docs/relay-protocol.md).
struct RelayCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "relay",
        abstract: "Relay a remote service's APDUs to the card over WebSocket (ws:// or wss://).",
        discussion: """
            The card must answer SELECT of one of the --aid applications (default D2760000850101); another card is refused \
            as unsupported and the service is not contacted. Progress goes to stderr ("cardctl: ..." lines and a progress bar). \
            A card lifted mid-sync is waited for (--wait MS; relay waits 10000 ms when --wait is not given): the service is told \
            it was lost and, when it is back, that it was reset; another card is reported as wrongCard and left untouched. \
            With --json, stdout gets one final JSON object: {"ok":true,"uid":...,"apdus":N,"resumes":N,"message":...,"events":[...]} \
            or {"ok":false,"error":...,"reason":...,"events":[...]}.
            Exit codes: 0 completed, 1 unsupported card, card error or the service failed the sync, 2 bad options, \
            3 connection or reader error, 130 cancelled.
            """)
    @OptionGroup(title: "Global Options") var global: GlobalOptions
    @Option(help: ArgumentHelp("The relay service, ws://HOST[:PORT]/PATH or wss://…", valueName: "URL")) var url: String
    @Option(help: ArgumentHelp("Bearer token sent on connect.", valueName: "TOKEN")) var token: String?
    @Option(
        name: .customLong("aid"),
        help: ArgumentHelp("Application admitting the card (repeatable; tried in order).", valueName: "HEX"))
    var aids: [String] = []
    @Option(
        name: .customLong("ca"),
        help: ArgumentHelp("PEM file of CA certificates trusted in addition to the system's.", valueName: "PATH"))
    var caFile: String?
    @Option(
        name: .customLong("idle-timeout"),
        help: ArgumentHelp("How long the service may stay silent, in milliseconds.", valueName: "MS"))
    var idleTimeout: Int = 30_000
    @Option(name: .customLong("max-apdus"), help: ArgumentHelp("Most APDUs the service may send.", valueName: "N"))
    var maxAPDUs: Int = 2000

    func validate() throws {
        guard idleTimeout > 0 else { throw ValidationError("--idle-timeout must be a positive number of milliseconds") }
        guard maxAPDUs > 0 else { throw ValidationError("--max-apdus must be positive") }
    }

    func run() async throws {
        var configuration = RelayConfiguration(url: url, bearerToken: token, caFile: caFile)
        if !aids.isEmpty {
            configuration.aids = try aids.map { text in
                let aid = try [UInt8](hex: text)
                guard (5...16).contains(aid.count) else {
                    throw InputError(description: "--aid \(text) is not 5 to 16 bytes")
                }
                return aid
            }
        }
        configuration.limits.idleTimeout = .milliseconds(idleTimeout)
        configuration.limits.maxAPDUs = maxAPDUs
        var policy = global.policy
        if global.wait == nil { policy.cardReturnTimeout = .seconds(10) }

        let logger = CommandLogging.logger(trace: global.trace)
        let connection = try await ReaderConnection.open(global, logger: logger, traceToStandardError: true)
        let reader = try connection.primary
        let run = RelayClient(configuration: configuration, logger: logger).start(on: reader, policy: policy)
        let collector = Task { () -> [EventOutput] in
            var events: [EventOutput] = []
            for await event in run.progress {
                if case .syncing(let fraction?) = event {
                    Output.standardError("cardctl: \(Self.progressBar(fraction))")
                } else {
                    Output.standardError("cardctl: \(event)")
                }
                events.append(EventOutput(event))
            }
            return events
        }
        var failure: (any Error)?
        var result: RelayResult?
        do { result = try await run.result } catch { failure = error }
        let events = await collector.value
        try await connection.close()
        if let result {
            if global.json {
                try Output.json(
                    RelayOutput.Synced(
                        uid: result.identity.uid?.hexString ?? "", atr: result.identity.atr.hexString,
                        apdus: result.apduCount, resumes: result.resumes, message: result.message, events: events))
            } else {
                Output.standardOutput(
                    "synced \(result.identity): \(result.apduCount) APDUs, \(result.resumes) resume(s)"
                        + (result.message.map { ": \($0)" } ?? ""))
            }
            return
        }
        guard let failure else { return }
        if failure is CancellationError { throw failure }
        guard let relayError = failure as? RelayError else { throw failure }
        if global.json {
            try Output.json(
                RelayOutput.Failed(error: Self.name(of: relayError), reason: relayError.description, events: events))
        }
        Output.standardError("error: \(relayError)")
        throw ExitCode(Self.exitStatus(relayError).rawValue)
    }

    static func exitStatus(_ error: RelayError) -> ExitStatus {
        switch error {
        case .invalidURL, .invalidCAFile, .tokenOverPlainWebSocket: .usage
        case .unsupportedCard, .serviceFailed, .card, .protocolViolation, .tooManyAPDUs: .cardError
        case .connectionFailed, .connectionClosed, .idleTimeout: .readerError
        }
    }

    static func name(of error: RelayError) -> String {
        switch error {
        case .unsupportedCard: "unsupportedCard"
        case .invalidURL: "invalidURL"
        case .tokenOverPlainWebSocket: "tokenOverPlainWebSocket"
        case .invalidCAFile: "invalidCAFile"
        case .connectionFailed: "connectionFailed"
        case .connectionClosed: "connectionClosed"
        case .idleTimeout: "idleTimeout"
        case .protocolViolation: "protocolViolation"
        case .tooManyAPDUs: "tooManyAPDUs"
        case .serviceFailed: "serviceFailed"
        case .card: "card"
        }
    }

    /// `[##########----------]  50%`
    static func progressBar(_ fraction: Double) -> String {
        let filled = Int((fraction * 20).rounded())
        return "[" + String(repeating: "#", count: filled) + String(repeating: "-", count: 20 - filled) + "] "
            + "\(Int((fraction * 100).rounded()))%"
    }
}
