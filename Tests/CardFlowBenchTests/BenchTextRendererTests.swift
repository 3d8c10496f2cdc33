import Testing

@testable import CardFlowBench

@Suite("BenchTextRenderer")
struct BenchTextRendererTests {
    static func lines(_ run: BenchRun, width: Int = 80) -> [String] {
        BenchTextRenderer.render(BenchReportFixtures.document(runs: [run]), width: width)
            .split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    }

    @Test("the header names the version, command, seed and machine; each run its reader, card and clock")
    func header() {
        let text = BenchTextRenderer.render(BenchReportFixtures.fullDocument())
        #expect(text.hasPrefix("CardFlow 0.9.0 bench, 2025-01-02T03:04:05Z (cardflow-bench/1)\n"))
        #expect(
            text.contains(
                "command: cardctl bench all --reader usb:1:4:0 --note <script>alert('x')</script> & co (seed 42)"))
        #expect(
            text.contains(
                "machine: bench-host, Linux 6.1.0-18-amd64 x86_64, Intel(R) Core(TM) i5-8250U CPU @ 1.60GHz, 2 processors"
            ))
        for (index, kind) in ["latency", "sweep", "operations", "comparison"].enumerated() {
            #expect(text.contains("── run \(index + 1) of 4: \(kind) ─"))
        }
        #expect(
            text.contains(
                "reader:  ACS ACR1252 Dual Reader (usb:1:4:0), backend usb, 072F:223B, serial RR123, firmware 2.11"))
        #expect(text.contains("link:    exchange shortAPDU, protocol T=1, speed 424 kbit/s"))
        #expect(text.contains("details: maximum message length 271, slots 2"))
        #expect(text.contains("card:    MIFARE DESFire EV2, ATR 3B8180018080"))
        #expect(text.contains("clock:   monotonic"))
        #expect(text.contains("clock:   virtual"))
        #expect(text.hasSuffix("\n"))
        #expect(!text.contains("\u{1B}"))
    }

    @Test("latency: statistics in human units, a histogram whose counts add up, outliers and the method")
    func latency() throws {
        let run = BenchReportFixtures.latencyRun()
        let latency = try #require(run.latency)
        let lines = Self.lines(run)
        let header = try #require(lines.firstIndex { $0.hasPrefix("  count") })
        for name in ["min", "p50", "p90", "p99", "p99.9", "max", "mean", "stddev"] {
            #expect(lines[header].contains(name))
        }
        let values = lines[header + 1]
        #expect(values.contains("2000"))
        #expect(values.contains(BenchNumberFormat.duration(latency.statistics.p50Ns)))
        #expect(values.contains(" ms"))
        #expect(values.contains(" µs")) // the standard deviation
        #expect(lines.contains { $0.hasPrefix("latency: 2000 round trips of 00A4040007A0000000041010 → 9000") })
        #expect(lines.contains { $0.contains("APDU/s") })

        let bars = lines.filter { $0.contains(" │") }
        #expect(bars.count == latency.histogram.count)
        let counts = bars.compactMap { $0.split(separator: " ").last.flatMap { Int($0) } }
        #expect(counts.reduce(0, +) == latency.histogram.reduce(0) { $0 + $1.count })
        #expect(bars.allSatisfy { $0.count <= 80 })
        #expect(bars.contains { $0.contains("█") })
        #expect(bars.contains { $0.contains("ms") && $0.contains("–") })

        #expect(lines.contains("outliers: 3 time extensions, 0 discarded frames, 1 retransmission"))
        #expect(lines.contains("    #97: 4.70 ms (2 time extensions)"))
        #expect(lines.contains("    #194: 4.65 ms"))
        #expect(lines.contains("  failures: 2, first: card removed <during> exchange & \"retry\""))
        #expect(lines.contains("method: closed loop, 100 warm-up round trips, at least 2 s"))
    }

    @Test("an interrupted run with no samples says so and shows no statistics")
    func interruptedAndEmpty() {
        let lines = Self.lines(BenchReportFixtures.emptyLatencyRun())
        #expect(lines.contains("interrupted: Ctrl-C after 0 samples; results cover what was measured"))
        #expect(lines.contains("histogram: no samples"))
        #expect(!lines.contains { $0.hasPrefix("  count") })
        #expect(
            lines.contains("outliers: time extensions, discarded frames, retransmissions not visible on this backend"))
        #expect(lines.contains("  failures: none"))
    }

    @Test("sweep: the points table and the fit with line rates, R² and the largest residual")
    func sweep() {
        let lines = Self.lines(BenchReportFixtures.sweepRun())
        #expect(lines.contains("sweep: echo, UPDATE BINARY / READ BINARY of growing sizes; 50 samples per point"))
        let header = lines.first { $0.hasPrefix("  direction") }
        #expect(header?.contains("median") == true && header?.contains("p10–p90") == true)
        #expect(lines.filter { $0.hasPrefix("  command ") }.count == 7)
        #expect(lines.filter { $0.hasPrefix("  response ") }.count == 7)
        #expect(lines.contains { $0.hasPrefix("  command ") && $0.contains("240 B") && $0.contains("23.8 ms") })
        #expect(lines.contains("fit: time = 1.00 ms + 95.0 µs × command byte + 80.0 µs × response byte"))
        #expect(lines.contains("  fixed cost 1.00 ms"))
        #expect(lines.contains("  per command byte 95.0 µs (≈ 84.2 kbit/s)"))
        #expect(lines.contains("  per response byte 80.0 µs (≈ 100 kbit/s)"))
        #expect(lines.contains("  R² 0.9988, max residual 12.3 µs"))
    }

    @Test("a sweep without a fit or points says so")
    func sweepWithoutFit() {
        var run = BenchReportFixtures.sweepRun(fit: false)
        #expect(Self.lines(run).contains("fit: none (too few points to fit a line)"))
        run.sweep?.points = []
        #expect(Self.lines(run).contains("  no points"))
    }

    @Test("operations: one row per operation with its mode, bytes, APDUs, p50, p90 and ops/s; skipped ones with why")
    func operations() throws {
        let run = BenchReportFixtures.operationsRun()
        let lines = Self.lines(run)
        #expect(lines.contains("operations (desfire):"))
        let header = try #require(lines.first { $0.hasPrefix("  operation") })
        for column in ["mode", "bytes", "APDUs/op", "p50", "p90", "ops/s"] { #expect(header.contains(column)) }
        let authenticate = try #require(lines.first { $0.hasPrefix("  authenticate AES") })
        let statistics = try #require(run.operations?.operations.first?.statistics)
        #expect(authenticate.contains(" full "))
        #expect(authenticate.contains(" 2.00 "))
        #expect(authenticate.contains(BenchNumberFormat.duration(statistics.p50Ns)))
        #expect(authenticate.contains(BenchNumberFormat.rate(statistics.apdusPerSecond)))
        #expect(lines.contains { $0.hasPrefix("  write 128 B <data> (writes)") && $0.contains(" 128 ") })
        #expect(lines.contains("skipped:"))
        #expect(lines.contains("  change key: no master key given (--key)"))
    }

    @Test("comparison: each side's figures and the ratios in words")
    func comparison() throws {
        let run = BenchReportFixtures.comparisonRun()
        let comparison = try #require(run.comparison)
        let throughput = try #require(comparison.throughputRatio)
        #expect(throughput > 1)
        let lines = Self.lines(run)
        #expect(lines.contains { $0.hasPrefix("  CardFlow") && $0.contains("ACS ACR1252 Dual Reader (usb)") })
        #expect(lines.contains { $0.hasPrefix("  pcscd") && $0.contains("(pcsc)") })
        let factor = BenchNumberFormat.ratio(throughput)
        #expect(lines.contains { $0.hasPrefix("CardFlow is \(factor) as fast (throughput) as pcscd") })
        #expect(
            lines.contains { $0.hasPrefix("pcscd's median round trip takes ") && $0.contains("as long as CardFlow's") })
    }

    @Test("comparison: a failed side shows its error and no ratio")
    func comparisonFailure() {
        let lines = Self.lines(BenchReportFixtures.comparisonRun(failedSecond: true))
        #expect(lines.contains("  pcscd failed: SCardConnect: <no card>"))
        #expect(lines.contains("no ratio: a side has no measurement"))
    }

    @Test("no runs, missing results, zero and huge values render without trouble")
    func edgeCases() {
        #expect(BenchTextRenderer.render(BenchReportFixtures.document(runs: [])).contains("\nno runs\n"))
        let reader = BenchReportFixtures.pcscReader
        var runs = BenchRun.Kind.allKinds.map {
            BenchRun(kind: $0, reader: reader, card: nil, clock: "virtual", method: "")
        }
        let huge = LatencyStatistics(
            count: .max, minNs: 0, p50Ns: .max, p90Ns: .max, p99Ns: .max, p999Ns: .max, maxNs: .max, meanNs: .min,
            standardDeviationNs: 0, apdusPerSecond: .infinity)
        var latency = BenchRun(kind: .latency, reader: reader, card: nil, clock: "virtual", method: "")
        latency.latency = LatencyResult(
            command: "", statusWord: "", responseLength: 0, warmupCount: 0, durationNs: .max, statistics: huge,
            histogram: [
                HistogramBucket(lowerNs: 0, upperNs: .max, count: .max),
                HistogramBucket(lowerNs: .max, upperNs: .max, count: 0),
            ],
            percentileCurve: [PercentilePoint(percentile: 100, valueNs: .max)],
            outliers: LatencyOutliers(slowSamples: [SlowSample(index: .max, valueNs: .min, cause: "")], failures: .max))
        runs.append(latency)
        var operations = BenchRun(kind: .operations, reader: reader, card: nil, clock: "virtual", method: "")
        operations.operations = OperationsResult(
            family: "",
            operations: [
                OperationTiming(
                    name: "", commMode: nil, bytes: nil, apdusPerOperation: .nan, statistics: huge, writes: false)
            ], skipped: [])
        runs.append(operations)
        var sweep = BenchRun(kind: .sweep, reader: reader, card: nil, clock: "virtual", method: "")
        sweep.sweep = SweepResult(
            probe: "", probeDescription: "", samplesPerPoint: 0, points: [],
            fit: SweepFit(
                fixedNs: -5, perCommandByteNs: 0, perResponseByteNs: .infinity, rSquared: .nan, maxResidualNs: 0))
        runs.append(sweep)
        var comparison = BenchRun(kind: .comparison, reader: reader, card: nil, clock: "virtual", method: "")
        comparison.comparison = ComparisonResult(sides: [])
        runs.append(comparison)
        let text = BenchTextRenderer.render(BenchReportFixtures.document(runs: runs), width: 0)
        #expect(text.contains("latency: no result"))
        #expect(text.contains("comparison:\n  no sides"))
        #expect(text.contains("9.22e18") == false)
        #expect(text.contains(" s "))
    }

    @Test("numbers: three significant digits in the unit that suits them")
    func numberFormat() {
        #expect(BenchNumberFormat.duration(Int64(0)) == "0 ns")
        #expect(BenchNumberFormat.duration(Int64(850)) == "850 ns")
        #expect(BenchNumberFormat.duration(Int64(999)) == "999 ns")
        #expect(BenchNumberFormat.duration(Int64(1_000)) == "1.00 µs")
        #expect(BenchNumberFormat.duration(Int64(12_345)) == "12.3 µs")
        #expect(BenchNumberFormat.duration(Int64(999_700)) == "1.00 ms")
        #expect(BenchNumberFormat.duration(Int64(1_500_000)) == "1.50 ms")
        #expect(BenchNumberFormat.duration(Int64(2_000_000_000)) == "2.00 s")
        #expect(BenchNumberFormat.duration(Int64(-1_500)) == "-1.50 µs")
        #expect(BenchNumberFormat.duration(Int64.max) == "9223372037 s")
        #expect(BenchNumberFormat.duration(Double.nan) == "–")
        #expect(BenchNumberFormat.significant(9.996) == "10.0")
        #expect(BenchNumberFormat.significant(0.000_123_4) == "0.000123")
        #expect(BenchNumberFormat.significant(12345) == "12345")
        #expect(BenchNumberFormat.significant(1e20) == "1.00e20")
        #expect(BenchNumberFormat.significant(0) == "0")
        #expect(BenchNumberFormat.significant(.infinity) == "∞")
        #expect(BenchNumberFormat.fixed(0.998_76, decimals: 4) == "0.9988")
        #expect(BenchNumberFormat.fixed(-0.001, decimals: 2) == "0.00")
        #expect(BenchNumberFormat.ratio(1.4234) == "1.42×")
        #expect(BenchNumberFormat.rate(798.4) == "798")
    }

    @Test("histogram bars: proportional, a sliver for tiny counts, merged when there are many buckets")
    func histogramBars() {
        #expect(TextHistogram.bar(count: 0, largest: 10, width: 40) == "")
        #expect(TextHistogram.bar(count: 1, largest: 100_000, width: 40) == "▏")
        #expect(TextHistogram.bar(count: 10, largest: 10, width: 40) == String(repeating: "█", count: 40))
        #expect(TextHistogram.bar(count: 5, largest: 10, width: 5) == "██▌")
        let buckets = (0..<100).map {
            HistogramBucket(lowerNs: Int64($0 * 10), upperNs: Int64($0 * 10 + 10), count: $0)
        }
        let merged = TextHistogram.merge(buckets, into: 40)
        #expect(merged.count <= 40)
        #expect(merged.reduce(0) { $0 + $1.count } == (0..<100).reduce(0, +))
        #expect(merged.first?.lowerNs == 0 && merged.last?.upperNs == 1000)
        #expect(TextHistogram.lines(buckets, width: 60).count == merged.count)
    }
}

extension BenchRun.Kind {
    static let allKinds: [BenchRun.Kind] = [.latency, .sweep, .operations, .comparison]
}
