import ArgumentParser
import CardFlow
import DESFire

/// `cardctl desfire provision`: the whole provisioning flow with progress events.
struct DESFireProvision: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "provision",
        abstract:
            "Authenticate (PICC key) → format → create AES app → change its key 0 → create file (key 0 only) → write → read back.",
        discussion: """
            Progress events go to stderr, one line each ("cardctl: ..."). With --json, stdout gets one final JSON object: \
            {"ok":true,"aid":...,"file":...,"uid":...,"data":HEX,"events":[...]} with every flow event in order \
            (names such as stepStarted, stepFinished, waitingForCard, cardLost, wrongCard, resumed), or \
            {"ok":false,"error":...,"events":[...]} on failure.
            A card lifted mid-flow is waited for (--wait MS; provision waits 10000 ms when --wait is not given) and the flow resumes; \
            another card is reported as wrongCard and left untouched.
            With --diversify the key given is an AN10922 master key: the card gets its own key 0, derived from its UID \
            (GetCardUID), --aid and --system-identifier HEX; read it back with the same master key and --diversify.
            """)
    @OptionGroup(title: "Global Options") var global: GlobalOptions
    @OptionGroup var keys: DESFireKeyOptions
    @OptionGroup var input: DESFireDataOptions
    @Option(name: .customLong("aid"), help: ArgumentHelp("Application ID, 6 hex digits.", valueName: "HEX")) var aidHex:
        String
    @Option(help: "File number 0-31.") var file: UInt8
    @Option(help: "File size in bytes.") var size: Int
    @Option(help: "plain, mac or enc.") var comm: String
    @OptionGroup var diversification: DESFireDiversificationOptions

    func run() async throws {
        let aid = try DESFireApplicationID(hex: aidHex)
        let mode = try parseCommMode(comm)
        let key = try await keys.requiredKey()
        guard key.type == .aes else { throw InputError(description: "the application key must be AES (16 bytes)") }
        let applicationKey: DESFireProvisioning.ApplicationKeySource =
            try diversification.diversification(master: key, aid: aid).map { .diversified($0) } ?? .shared(key)
        let provisioning = DESFireProvisioning(
            application: aid, file: file, size: size, commMode: mode, applicationKey: applicationKey,
            data: try input.bytes(), piccKey: try keys.piccKey())
        try provisioning.validate()

        var base = global.policy
        if global.wait == nil {
            base.cardReturnTimeout = .seconds(10)
        }
        let connection = try await ReaderConnection.open(
            global, logger: CommandLogging.logger(trace: global.trace),
            traceToStandardError: true)
        let reader = try connection.primary
        let report = await FlowRunReport.run(
            provisioning.flow(), on: reader, policy: provisioning.policy(base: base), trace: global.trace)
        try await connection.close()
        let result = try? report.outcome.get()
        var failure: (any Error)?
        if case .failure(let error) = report.outcome { failure = error }
        if global.json {
            let list = report.eventList
            if let result {
                Output.standardOutput(
                    DESFireJSON.object([
                        ("ok", "true"), ("aid", DESFireJSON.string("\(result.application)")),
                        ("file", "\(result.file)"),
                        ("uid", DESFireJSON.string(result.uid.hexString)),
                        ("data", DESFireJSON.string(result.readBack.hexString)),
                        ("events", list),
                    ]))
            } else if let failure {
                Output.standardOutput(
                    DESFireJSON.object([("ok", "false"), ("error", DESFireJSON.string("\(failure)")), ("events", list)])
                )
            }
        } else if let result {
            Output.standardOutput(
                "provisioned \(result.application) file \(result.file): \(result.readBack.count) bytes written and verified"
            )
        }
        if let failure { throw surfacedFlowError(failure) }
    }

    /// One flow event as a JSON object.
    static func json(_ event: FlowEvent) -> String {
        let s = DESFireJSON.string
        switch event {
        case .waitingForCard: return #"{"event":"waitingForCard"}"#
        case .connected(let identity):
            return DESFireJSON.object([("event", s("connected")), ("card", s("\(identity)"))])
        case .stepStarted(let index, let total, let name):
            return DESFireJSON.object([
                ("event", s("stepStarted")), ("index", "\(index)"), ("total", "\(total)"), ("name", s(name)),
            ])
        case .stepFinished(let index, let total, let name):
            return DESFireJSON.object([
                ("event", s("stepFinished")), ("index", "\(index)"), ("total", "\(total)"), ("name", s(name)),
            ])
        case .retrying(let index, let attempt, let reason):
            return DESFireJSON.object([
                ("event", s("retrying")), ("index", "\(index)"), ("attempt", "\(attempt)"), ("reason", s(reason)),
            ])
        case .cardLost(let index): return DESFireJSON.object([("event", s("cardLost")), ("index", "\(index)")])
        case .wrongCard(let identity):
            return DESFireJSON.object([("event", s("wrongCard")), ("card", s("\(identity)"))])
        case .resumed(let index): return DESFireJSON.object([("event", s("resumed")), ("index", "\(index)")])
        case .progress(let fraction):
            return DESFireJSON.object([("event", s("progress")), ("fraction", "\(fraction)")])
        case .completed: return #"{"event":"completed"}"#
        case .failed(let reason): return DESFireJSON.object([("event", s("failed")), ("reason", s(reason))])
        }
    }
}
