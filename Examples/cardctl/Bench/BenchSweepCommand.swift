import ArgumentParser
import CardFlow
import CardFlowBench

/// `cardctl bench sweep`: round-trip time against command and answer size, and the fitted costs.
struct BenchSweepCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sweep",
        abstract: "Round-trip time as command data and answer data grow; fixed cost and cost per byte each way.",
        discussion: """
            Sizes 1, then every --step bytes up to 255 (command) and 256 (answer); with --extended also \
            extended lengths (512 … 4096) when the reader carries them. Each size's value is the median of \
            --samples round trips. A least-squares line through the short sizes gives the fixed cost per \
            APDU (USB round trip, reader firmware, RF framing, the card's own time) and the cost per byte in \
            each direction (USB, the reader's buses, the RF bit rate); extended sizes are shown, not fitted: \
            readers chain them over several USB messages. The card decides the probe: CardFlow's APDU test \
            card (sim:apdu-test) answers any size both ways; other cards need --file FID (a transparent EF \
            at least as large as the largest size) for answers, and --allow-write to time UPDATE BINARY \
            instead of SELECT by an unknown name (which changes nothing) for commands.
            """)

    @OptionGroup(title: "Global Options") var global: GlobalOptions
    @OptionGroup(title: "Bench Options") var bench: BenchOptions

    @Option(name: .long, help: ArgumentHelp("A transparent EF to READ BINARY (4 hex digits).", valueName: "FID"))
    var file: String?

    @Flag(name: .long, help: "Allow UPDATE BINARY of --file (writes seeded bytes to it).")
    var allowWrite = false

    @Option(name: .long, help: ArgumentHelp("Short-size step in bytes.", valueName: "N"))
    var step: Int = 16

    @Option(name: .long, help: ArgumentHelp("Samples per size.", valueName: "N"))
    var samples: Int = 30

    @Option(name: .long, help: ArgumentHelp("No size above this many bytes.", valueName: "N"))
    var maxSize: Int?

    @Flag(name: .long, help: "Also extended lengths (512 to 4096 bytes) where the reader and card carry them.")
    var extended = false

    func validate() throws {
        guard (1...255).contains(step) else { throw ValidationError("--step must be 1 to 255") }
        guard (1...100_000).contains(samples) else { throw ValidationError("--samples must be 1 to 100000") }
        if let maxSize, maxSize < 1 { throw ValidationError("--max-size must be 1 or more") }
        if allowWrite && file == nil { throw ValidationError("--allow-write writes to --file FID: give the file") }
    }

    func run() async throws {
        var fileID: [UInt8]?
        if let file {
            guard let bytes = try? [UInt8](hex: file), bytes.count == 2 else {
                throw InputError(description: "--file \(file): expected a file identifier of 4 hex digits, e.g. E104")
            }
            fileID = bytes
        }
        let plan = SweepPlan(step: step, includeExtended: extended, samplesPerPoint: samples, maximumSize: maxSize)
        let harness = BenchHarness(global: global, bench: bench)
        let data = SweepData(seed: bench.seed)
        let allowWrite = allowWrite
        let chosenFile = fileID
        try await harness.measureEachReader(.sweep) { context in
            let (probes, detectionNotes) = try await SweepProbe.detect(
                on: context.session, fileID: chosenFile, allowWrite: allowWrite, data: data)
            let outcome = await SweepRunner(channel: context.session, probe: context.probe, clock: context.clock)
                .run(
                    probes: probes, plan: plan,
                    maximumCommandLength: context.reader.info.capabilities.maximumCommandLength
                ) { harness.progress.show($0) }
            for note in detectionNotes + outcome.notes { Output.standardError("note: \(note)") }
            var run = context.run(
                .sweep, method: LatencyRunner.method + "; each size's value is the median of its samples")
            run.sweep = outcome.result
            run.interrupted = outcome.interruption != nil
            run.interruption = outcome.interruption
            return run
        }
    }
}
