import ArgumentParser
import CardFlow
import CardFlowBench

/// `cardctl bench`: measures the user's own readers and cards.
struct BenchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench",
        abstract: "Measure readers and cards: APDU latency, size sweeps, card operations, CardFlow vs pcscd.",
        discussion: """
            Every result names the machine, the reader (VID:PID, firmware, exchange level, protocol, speed) \
            and the card. Samples are closed-loop round trips on the monotonic clock (or, for a simulated \
            reader with clock=virtual, on its modelled time), after a warm-up, for at least a minimum \
            duration; percentiles come from HdrHistogram. --json prints the document described in \
            docs/bench-json-schema.md; --report PATH.html writes a page with charts that needs no network. \
            Ctrl-C ends a run and still prints and writes what was measured (exit status 130); a second \
            Ctrl-C exits at once. Nothing is written to a card unless you pass a write APDU or --allow-write.
            Examples:
              cardctl --reader usb bench latency --count 2000 --report latency.html
              cardctl --reader 'sim:apdu-test,usb=1,rf=106,clock=virtual' bench sweep
              cardctl --reader sim:desfire bench ops --allow-write
              cardctl simulate --card apdu-test -- cardctl --reader usb bench compare --start-pcscd
            """,
        subcommands: [
            BenchLatencyCommand.self, BenchSweepCommand.self, BenchOperationsCommand.self, BenchCompareCommand.self,
        ])
}

/// Options every `bench` subcommand takes.
struct BenchOptions: ParsableArguments {
    @Option(
        name: .long,
        help: ArgumentHelp(
            "Measure several readers (selectors, comma-separated) instead of --reader.", valueName: "A,B,..."))
    var readers: String?

    @Flag(name: .long, help: "With --readers: measure the readers at the same time instead of one after the other.")
    var parallel = false

    @Option(name: .long, help: ArgumentHelp("Write a self-contained HTML report with charts.", valueName: "PATH"))
    var report: String?

    @Option(name: .long, help: ArgumentHelp("Seed of generated command data (same seed, same APDUs).", valueName: "N"))
    var seed: UInt64 = 1

    @Flag(name: .long, help: "No progress bar (it is drawn on stderr when stderr is a terminal).")
    var noProgress = false

    func validate() throws {
        if let report, !report.hasSuffix(".html") && !report.hasSuffix(".htm") {
            throw ValidationError("--report writes HTML: give a path ending in .html")
        }
        if parallel && readers == nil { throw ValidationError("--parallel needs --readers A,B,...") }
        if let readers, Self.split(readers).isEmpty { throw ValidationError("--readers names no reader") }
    }

    /// The selectors to measure: `--readers`, else the global reader choice.
    func selectors(_ global: GlobalOptions) throws -> [ReaderChoice] {
        if let readers { return Self.split(readers).map { ReaderChoice(selector: $0, source: .option) } }
        return [try global.readerChoice()]
    }

    /// Splits `--readers` at the commas that start a selector: simulator options also use
    /// commas (`sim:apdu-test,usb=1,clock=virtual`), so a piece that is not a scheme (`sim`,
    /// `usb`, `pcsc`, `vpcd`, alone or followed by `:`) continues the selector before it.
    static func split(_ text: String) -> [String] {
        let schemes = ["sim", "usb", "pcsc", "vpcd"]
        var selectors: [String] = []
        for piece in text.split(separator: ",", omittingEmptySubsequences: false).map(String.init) {
            let startsSelector = schemes.contains { piece == $0 || piece.hasPrefix($0 + ":") }
            if startsSelector || selectors.isEmpty {
                selectors.append(piece)
            } else {
                selectors[selectors.count - 1] += "," + piece
            }
        }
        return selectors.filter { !$0.isEmpty }
    }
}

/// How many samples a latency measurement takes (latency and compare).
struct LatencyOptions: ParsableArguments {
    @Option(
        name: .long,
        help: ArgumentHelp(
            "The APDU to send, in hex (default: SELECT of the ICAO eMRTD application, which every ISO 7816-4 card answers and nothing changes).",
            valueName: "HEX"))
    var apdu: String = "00A4040007A0000002471001"

    @Option(name: .long, help: ArgumentHelp("Samples to measure at least.", valueName: "N"))
    var count: Int = 1000

    @Option(name: .long, help: ArgumentHelp("Unmeasured round trips first.", valueName: "N"))
    var warmup: Int = 50

    @Option(name: .long, help: ArgumentHelp("Measure for at least this long.", valueName: "SECONDS"))
    var minDuration: Double = 1

    @Option(name: .long, help: ArgumentHelp("Stop after this long even below --count.", valueName: "SECONDS"))
    var maxDuration: Double?

    func validate() throws {
        guard count >= 1, count <= 100_000_000 else { throw ValidationError("--count must be 1 to 100000000") }
        guard warmup >= 0 else { throw ValidationError("--warmup must be 0 or more") }
        guard minDuration >= 0, minDuration <= 86_400 else {
            throw ValidationError("--min-duration must be 0 to 86400 seconds")
        }
        if let maxDuration, maxDuration <= 0 { throw ValidationError("--max-duration must be above 0") }
    }

    var plan: LatencyPlan {
        LatencyPlan(
            warmup: warmup, count: count, minimumDuration: .milliseconds(Int64(minDuration * 1000)),
            maximumDuration: maxDuration.map { .milliseconds(Int64($0 * 1000)) })
    }

    /// The APDU, parsed.
    func command() throws -> CommandAPDU {
        do {
            return try CommandAPDU(hex: apdu)
        } catch {
            throw InputError(description: "--apdu \(apdu): \(error)")
        }
    }
}
