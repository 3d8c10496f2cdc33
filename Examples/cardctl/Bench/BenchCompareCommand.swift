import ArgumentParser
import CardFlow
import CardFlowBench

/// `cardctl bench compare`: the same latency test through CardFlow's own driver and through
/// pcscd on the same reader, one after the other.
struct BenchCompareCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "compare",
        abstract: "The same latency test through CardFlow's CCID driver (--reader) and through pcscd (--against).",
        discussion: """
            The two sides run one after the other, never together: --reader first (usb: CardFlow's own \
            driver), then it is closed and --against (default pcsc: the first reader pcscd serves, with its \
            CCID driver) runs the same test. With --start-pcscd, cardctl starts pcscd for the second side \
            and stops it afterwards, so each side has the reader to itself; otherwise a pcscd that already \
            runs holds the USB reader and the first side cannot open it (the error says so). Any two \
            selectors can be compared (e.g. two simulated readers). The result gives both sides' \
            percentiles and the ratios (p50 of the second over the first; APDU/s of the first over the \
            second). Under `cardctl simulate`, pcscd started here sees the emulated reader.
            """)

    @OptionGroup(title: "Global Options") var global: GlobalOptions
    @OptionGroup(title: "Bench Options") var bench: BenchOptions
    @OptionGroup(title: "Latency Options") var latency: LatencyOptions

    @Option(name: .long, help: ArgumentHelp("The second side's reader selector.", valueName: "SELECTOR"))
    var against: String = "pcsc"

    @Flag(name: .long, help: "Start pcscd for the second side and stop it afterwards (needs root for /run/pcscd).")
    var startPcscd = false

    @Option(name: .long, help: ArgumentHelp("The pcscd to start.", valueName: "PATH"))
    var pcscd: String = "pcscd"

    @Option(
        name: .long,
        help: ArgumentHelp("How long to wait for pcscd to list a reader with a card.", valueName: "SECONDS"))
    var pcscdWait: Double = 15

    func validate() throws {
        if bench.readers != nil { throw ValidationError("compare measures --reader against --against; drop --readers") }
        if startPcscd && !against.hasPrefix("pcsc") {
            throw ValidationError("--start-pcscd serves a pcsc selector: use --against pcsc[:NAME-PREFIX]")
        }
    }

    func run() async throws {
        let command = try latency.command()
        let plan = latency.plan
        let harness = BenchHarness(global: global, bench: bench)
        let first = try global.readerChoice()
        let second = ReaderChoice(selector: against, source: .option)
        let running = PCSCDaemonLauncher.running()
        if startPcscd, let holder = running.first {
            throw InputError(
                description: """
                    pcscd is already running (pid \(holder.pid)): it holds /run/pcscd and the USB readers it knows. \
                    Stop it first (systemctl stop pcscd.socket pcscd.service), or drop --start-pcscd and compare \
                    against that pcscd with a reader it does not hold.
                    """)
        }
        let collector = BenchCollector()
        var sides: [ComparisonSide] = []
        var firstContext: (BenchReaderIdentity, BenchCardIdentity, String)?

        // Side one.
        do {
            let side = try await harness.withContext(first) { context in
                let outcome = await LatencyRunner(channel: context.session, probe: context.probe, clock: context.clock)
                    .run(command, plan: plan, phase: "compare: \(context.identity.id)") { harness.progress.show($0) }
                return (context.identity, context.card, context.clockName, outcome)
            }
            firstContext = (side.0, side.1, side.2)
            sides.append(
                ComparisonSide(
                    label: Self.label(side.0), reader: side.0, latency: side.3.result, failure: side.3.interruption))
        } catch is CancellationError {
        } catch {
            let message = Self.explain(error, selector: first.selector, pcscdRunning: !running.isEmpty)
            sides.append(
                ComparisonSide(label: first.selector, reader: Self.unknown(first), latency: nil, failure: message))
        }

        // Side two, with pcscd when asked for.
        if !Task.isCancelled {
            var daemon: PCSCDaemonLauncher?
            do {
                if startPcscd { daemon = try PCSCDaemonLauncher.start(executable: pcscd) }
                var second = second
                if second.selector == "pcsc" || startPcscd {
                    second = try await readerWithCard(
                        second, like: firstContext?.0.name, harness: harness, daemon: daemon)
                }
                let side = try await harness.withContext(second) { context in
                    let outcome = await LatencyRunner(
                        channel: context.session, probe: context.probe, clock: context.clock
                    ).run(command, plan: plan, phase: "compare: \(context.identity.id)") { harness.progress.show($0) }
                    return (context.identity, outcome)
                }
                sides.append(
                    ComparisonSide(
                        label: Self.label(side.0), reader: side.0, latency: side.1.result, failure: side.1.interruption)
                )
            } catch is CancellationError {
            } catch {
                var message = "\(error)"
                if let daemon { message += "\npcscd said:\n" + daemon.logTail() }
                sides.append(
                    ComparisonSide(label: second.selector, reader: Self.unknown(second), latency: nil, failure: message)
                )
            }
            await daemon?.stop()
        }

        let reader = firstContext?.0 ?? sides.first?.reader ?? Self.unknown(first)
        var run = BenchRun(
            kind: .comparison, reader: reader, card: firstContext?.1, clock: firstContext?.2 ?? "monotonic",
            method: LatencyRunner.method + "; the two sides run one after the other with the same APDU and plan")
        run.comparison = ComparisonResult(sides: sides)
        let interruption = sides.compactMap(\.failure).first ?? (Task.isCancelled ? "cancelled" : nil)
        run.interrupted = interruption != nil || sides.count < 2
        run.interruption = interruption
        await collector.add(run)
        try await harness.finish(collector)
        for side in sides where side.latency == nil {
            Output.standardError("error: \(side.label): \(side.failure ?? "not measured")")
        }
        if sides.count < 2 || sides.contains(where: { $0.latency == nil }) {
            throw BenchReaderError(description: "compare: a side could not be measured (see above)")
        }
    }

    /// Polls the second side until one of its readers has a card (or pcscd dies, or time is
    /// up) and returns the selector of that reader: pcscd also lists readers of other drivers
    /// (vsmartcard's "Virtual PCD" slots, other USB readers), so the one named like side one's
    /// reader is preferred, then any with a card.
    private func readerWithCard(
        _ choice: ReaderChoice, like name: String?, harness: BenchHarness, daemon: PCSCDaemonLauncher?
    ) async throws -> ReaderChoice {
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: .milliseconds(Int64(pcscdWait * 1000)))
        var lastProblem = "none listed"
        while clock.now < deadline {
            try Task.checkCancellation()
            if let daemon, !daemon.isRunning {
                throw BenchReaderError(description: "pcscd exited at start")
            }
            do {
                // The names first, with no presence watch (several watches on one pcscd context
                // can stall), then each candidate alone: side one's namesake first.
                let listing = try await ReaderConnection.open(choice, options: global, logger: harness.logger)
                let names = listing.readers.map(\.info.name)
                try? await listing.close()
                let ordered =
                    names.filter { candidate in name.map { candidate.contains($0) } ?? false }
                    + names.filter { candidate in !(name.map { candidate.contains($0) } ?? false) }
                lastProblem = names.isEmpty ? "no reader" : "no card on \(names.joined(separator: ", "))"
                for candidate in ordered {
                    let single = ReaderChoice(selector: "pcsc:" + candidate, source: .option)
                    let connection = try await ReaderConnection.open(single, options: global, logger: harness.logger)
                    let present = try? await connection.primary.currentPresence()
                    try? await connection.close()
                    if case .present? = present { return single }
                }
            } catch {
                lastProblem = "\(error)"
            }
            try await Task.sleep(for: .milliseconds(200))
        }
        throw BenchReaderError(
            description: "\(choice.selector) listed no reader with a card within \(pcscdWait) s (\(lastProblem))")
    }

    static func label(_ identity: BenchReaderIdentity) -> String {
        switch identity.backend {
        case "usb": "CardFlow (direct CCID driver)"
        case "pcsc": "pcscd (PC/SC, its CCID driver)"
        default: "\(identity.backend): \(identity.id)"
        }
    }

    static func unknown(_ choice: ReaderChoice) -> BenchReaderIdentity {
        BenchReaderIdentity(
            id: choice.selector, name: choice.selector,
            backend: choice.selector.prefix { $0 != ":" && $0 != "," }.description)
    }

    /// A USB reader that cannot be opened while pcscd runs is pcscd's.
    static func explain(_ error: any Error, selector: String, pcscdRunning: Bool) -> String {
        let text = "\(error)"
        guard selector.hasPrefix("usb"), pcscdRunning || text.contains("BUSY") || text.contains("busy") else {
            return text
        }
        return """
            \(text)
            pcscd holds the reader (it claims the USB readers it knows): stop it (systemctl stop pcscd.socket \
            pcscd.service) and run compare with --start-pcscd, so each side has the reader to itself.
            """
    }
}
