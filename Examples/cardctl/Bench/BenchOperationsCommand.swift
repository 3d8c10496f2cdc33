import ArgumentParser
import CardFlow
import CardFlowBench
import CardFlowDESFire
import CardFlowTONCard

/// `cardctl bench ops`: per-operation timings of the card family on the reader.
struct BenchOperationsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ops",
        abstract: "Per-operation timings: DESFire, TON, NDEF, ISO 15693 operations with APDU counts.",
        discussion: """
            The card family is recognised from the ATR and harmless commands (or given with --family). \
            Each operation is repeated --iterations times after --warmup unmeasured runs; a row gives its \
            percentiles, operations per second and the APDUs one operation exchanges. Read-only operations \
            always run; writes only with --allow-write: DESFire creates application F0CFB0 with a plain, a \
            MAC and a full file, times authenticate, write and read per mode, and deletes it (an existing \
            F0CFB0 is left alone); NDEF and ISO 15693 write back what they read. TON verify PIN + sign needs \
            --pin and the card's HMAC key in the key store (cardctl ton create-hmac-key). Rows that cannot \
            run are listed with the reason.
            """)

    @OptionGroup(title: "Global Options") var global: GlobalOptions
    @OptionGroup(title: "Bench Options") var bench: BenchOptions
    @OptionGroup var store: KeyCommand.StoreOptions

    @Option(
        name: .long, help: ArgumentHelp("desfire, ton, ndef or iso15693 (default: recognised).", valueName: "FAMILY"))
    var family: String?

    @Option(name: .long, help: ArgumentHelp("Measured repetitions per operation.", valueName: "N"))
    var iterations: Int = 20

    @Option(name: .long, help: ArgumentHelp("Unmeasured repetitions first.", valueName: "N"))
    var warmup: Int = 2

    @Flag(name: .long, help: "Allow operations that write (see above).")
    var allowWrite = false

    @Option(name: .long, help: ArgumentHelp("Bytes per DESFire read/write and TON message.", valueName: "N"))
    var dataLength: Int = 32

    @Option(name: .long, help: ArgumentHelp("DESFire PICC master key in hex (default DES 8 x 00).", valueName: "HEX"))
    var piccKey: String?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "aes, des, 2k3des or 3k3des (default from the length: 8 DES, 16 AES, 24 3K3DES).", valueName: "TYPE"))
    var piccKeyType: String?

    @Option(name: .long, help: ArgumentHelp("TON card PIN (4 digits) for verify PIN + sign.", valueName: "PIN"))
    var pin: String?

    @Option(name: .long, help: ArgumentHelp("ISO 15693 blocks to read, e.g. 0-3.", valueName: "FIRST-LAST"))
    var blocks: String = "0-3"

    func validate() throws {
        guard (1...1_000_000).contains(iterations) else { throw ValidationError("--iterations must be 1 to 1000000") }
        guard warmup >= 0 else { throw ValidationError("--warmup must be 0 or more") }
        guard (1...4096).contains(dataLength) else { throw ValidationError("--data-length must be 1 to 4096") }
        if let family, BenchCardFamily(rawValue: family) == nil {
            throw ValidationError("--family is desfire, ton, ndef or iso15693")
        }
        _ = try blockRange()
    }

    func blockRange() throws -> ClosedRange<Int> {
        let parts = blocks.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count <= 2, let first = Int(parts[0]), let last = Int(parts.last ?? parts[0]), first >= 0,
            last >= first, last <= 255
        else { throw ValidationError("--blocks is FIRST-LAST with 0 <= FIRST <= LAST <= 255, e.g. 0-3") }
        return first...last
    }

    func run() async throws {
        var plan = OperationsPlan(
            iterations: iterations, warmup: warmup, allowWrite: allowWrite, dataLength: dataLength,
            iso15693Blocks: try blockRange())
        if let key = try await DESFireKeyOptions.resolve(
            hex: piccKey, ascii: nil, slot: nil, type: piccKeyType, store: nil, option: "--picc-key")
        {
            plan.desfirePICCKey = key
        }
        if let pin {
            plan.tonPIN = try TONPin(pin)
            plan.keyStore = try store.open()
        }
        let chosen = family.flatMap(BenchCardFamily.init(rawValue:))
        let harness = BenchHarness(global: global, bench: bench)
        let plannedPlan = plan
        try await harness.measureEachReader(.operations) { context in
            var detected = chosen
            if detected == nil { detected = try await OperationsBench.detectFamily(session: context.session) }
            guard let family = detected else {
                throw InputError(
                    description:
                        "\(context.identity.id): the card is none of desfire, ton, ndef, iso15693; name it with --family"
                )
            }
            // APDU trace redaction for the secrets TON operations send.
            if family == .ton { await context.session.addRedaction(TONWallet.redaction) }
            let result = try await OperationsBench.run(
                family: family, channel: context.session, plan: plannedPlan, clock: context.clock
            ) { fraction in
                harness.progress.show(BenchProgress(phase: "ops \(family.rawValue)", fraction: fraction, samples: 0))
            }
            var run = context.run(
                .operations,
                method:
                    "each operation repeated after unmeasured warm-up runs; a sample is one whole operation (all its APDUs) on the measuring clock; operations per second = samples / their total time"
            )
            run.operations = result
            if Task.isCancelled {
                run.interrupted = true
                run.interruption = "cancelled"
            }
            return run
        }
    }
}
