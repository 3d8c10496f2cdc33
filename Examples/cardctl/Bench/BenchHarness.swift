import CardFlow
import CardFlowBench
import Foundation
import Logging

/// What a measurement on one reader gets: the reader, a session on its card, the clock to
/// measure with and who the reader and card are.
struct BenchContext: Sendable {
    let reader: Reader
    let session: CardSession
    let clock: any ElapsedClock
    /// "monotonic" or "virtual".
    let clockName: String
    let probe: BenchReaderProbe
    let identity: BenchReaderIdentity
    let card: BenchCardIdentity

    /// A run of `kind` with this context's identity.
    func run(_ kind: BenchRun.Kind, method: String) -> BenchRun {
        BenchRun(kind: kind, reader: identity, card: card, clock: clockName, method: method)
    }
}

/// Runs one measurement per reader selector (in turn or in parallel), keeps every run as soon
/// as it is measured (so Ctrl-C or a failing close loses nothing), and prints and writes the
/// document at the end.
struct BenchHarness: Sendable {
    let global: GlobalOptions
    let bench: BenchOptions
    let logger: Logger
    let progress: BenchProgressBar

    init(global: GlobalOptions, bench: BenchOptions) {
        self.global = global
        self.bench = bench
        self.logger = CommandLogging.logger(trace: global.trace)
        self.progress = BenchProgressBar(enabled: !bench.noProgress)
        // Ctrl-C must leave time to print and write what was measured.
        InterruptGrace.extend()
    }

    /// Measures every selector with `measure`, then prints (and writes) the document. Throws
    /// after printing when the run was cancelled (exit status 130) or nothing could be measured.
    func measureEachReader(
        _ kind: BenchRun.Kind, _ body: @escaping @Sendable (BenchContext) async throws -> BenchRun
    ) async throws {
        let choices = try bench.selectors(global)
        let collector = BenchCollector()
        if bench.parallel {
            await withTaskGroup(of: Void.self) { group in
                for choice in choices {
                    group.addTask { await self.measure(choice, kind: kind, into: collector, body) }
                }
            }
        } else {
            for choice in choices {
                if Task.isCancelled { break }
                await measure(choice, kind: kind, into: collector, body)
            }
        }
        try await finish(collector)
    }

    /// Prints and writes what `collector` holds; throws when the work was cancelled or failed.
    func finish(_ collector: BenchCollector) async throws {
        progress.clear()
        let runs = await collector.runs
        let failures = await collector.failures
        if !runs.isEmpty {
            let document = BenchDocument(
                command: Array(CommandLine.arguments.dropFirst()), seed: bench.seed, machine: .current(),
                runs: runs, cardflowVersion: CardFlowVersion.current,
                generatedAt: ISO8601DateFormatter().string(from: Date()))
            try emit(document)
        }
        for failure in failures { Output.standardError("error: \(failure.selector): \(failure.error)") }
        if Task.isCancelled || runs.contains(where: { $0.interruption?.hasPrefix("cancelled") == true }) {
            throw CancellationError()
        }
        if let first = failures.first {
            // One reader that could not be measured decides the exit status.
            throw first.error
        }
        if let empty = runs.first(where: { $0.failure != nil }), let reason = empty.failure {
            throw BenchMeasuredNothing(reader: empty.reader.id, reason: reason)
        }
    }

    private func measure(
        _ choice: ReaderChoice, kind: BenchRun.Kind, into collector: BenchCollector,
        _ measure: @escaping @Sendable (BenchContext) async throws -> BenchRun
    ) async {
        do {
            try await withContext(choice) { context in
                var run = try await measure(context)
                run.failure = run.measuredNothingReason
                await collector.add(run)
            }
        } catch {
            // A run measured before the session failed to close is kept; the error is told.
            if !(error is CancellationError) { await collector.fail(choice.selector, error) }
        }
    }

    /// Opens `choice`, runs `body` in a session on its first reader, and closes everything
    /// however `body` ends.
    func withContext<T: Sendable>(
        _ choice: ReaderChoice, _ body: @escaping @Sendable (BenchContext) async throws -> T
    ) async throws -> T {
        let connection = try await ReaderConnection.open(
            choice, options: global, logger: logger, traceToStandardError: true)
        do {
            let reader = try connection.primary
            let clock: any ElapsedClock = connection.virtualClock ?? RealClock()
            let clockName = connection.virtualClock == nil ? "monotonic" : "virtual"
            let value = try await reader.withSession(policy: global.policy(for: reader)) { session in
                let probe = BenchReaderProbe(reader: reader)
                let context = BenchContext(
                    reader: reader, session: session, clock: clock, clockName: clockName, probe: probe,
                    identity: await probe.identity(session: session),
                    card: await BenchReaderProbe.card(of: session))
                return try await body(context)
            }
            try? await connection.close()
            return value
        } catch {
            try? await connection.close()
            throw error
        }
    }

    /// Prints the document (JSON or text) and writes the report.
    func emit(_ document: BenchDocument) throws {
        if global.json {
            try Output.sortedJSON(document)
        } else {
            Output.standardOutput(BenchTextRenderer.render(document, width: BenchProgressBar.terminalWidth()))
        }
        if let path = bench.report {
            do {
                try BenchHTMLReport.render(document).write(toFile: path, atomically: true, encoding: .utf8)
            } catch {
                throw InputError(description: "--report \(path): \(error.localizedDescription)")
            }
            Output.standardError("report written to \(path)")
        }
    }
}

/// The runs measured so far, and the readers that could not be measured.
actor BenchCollector {
    private(set) var runs: [BenchRun] = []
    private(set) var failures: [(selector: String, error: any Error)] = []

    func add(_ run: BenchRun) { runs.append(run) }

    func fail(_ selector: String, _ error: any Error) { failures.append((selector, error)) }
}
