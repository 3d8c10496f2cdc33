import ArgumentParser
import CardFlow
import CardFlowDESFire

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
            if let result {
                try Output.json(
                    DESFireOutput.Provisioned(
                        aid: "\(result.application)", file: result.file, uid: result.uid.hexString,
                        data: result.readBack.hexString, events: report.events))
            } else if let failure {
                try Output.json(FlowFailedOutput(error: "\(failure)", events: report.events))
            }
        } else if let result {
            Output.standardOutput(
                "provisioned \(result.application) file \(result.file): \(result.readBack.count) bytes written and verified"
            )
        }
        if let failure { throw surfacedFlowError(failure) }
    }
}
