import CardFlowBench

/// Hand-built bench documents for the renderer tests: one run of each kind with realistic
/// numbers (statistics, buckets and curves from ``LatencyRecorder``), and the awkward cases
/// (interrupted, empty, no fit, a failed side, text that needs escaping).
enum BenchReportFixtures {
    static let machine = BenchMachine(
        hostName: "bench-host", operatingSystem: "Linux 6.1.0-18-amd64 x86_64",
        cpuModel: "Intel(R) Core(TM) i5-8250U CPU @ 1.60GHz", processorCount: 2)

    static let usbReader = BenchReaderIdentity(
        id: "usb:1:4:0", name: "ACS ACR1252 Dual Reader", backend: "usb", usbID: "072F:223B",
        serialNumber: "RR123", firmware: "2.11", exchangeLevel: "shortAPDU", cardProtocol: "T=1",
        speed: "424 kbit/s", details: ["maximum message length": "271", "slots": "2"])

    static let pcscReader = BenchReaderIdentity(
        id: "pcsc:ACS ACR1252 00 00", name: "ACS ACR1252 Dual Reader [ACR1252 Dual Reader PICC] 00 00",
        backend: "pcsc")

    static let card = BenchCardIdentity(atr: "3B8180018080", name: "MIFARE DESFire EV2")

    /// Pseudo-random but repeatable samples: a body around `center` µs and a thin tail.
    static func recorder(count: Int, centerMicroseconds: Int, seed: UInt64 = 1) -> LatencyRecorder {
        var recorder = LatencyRecorder()
        var state = seed
        for index in 0..<count {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let jitter = Int((state >> 33) % 200)
            let tail = index % 97 == 0 ? 3 * centerMicroseconds : 0
            recorder.record(.microseconds(centerMicroseconds - 100 + jitter + tail))
        }
        return recorder
    }

    static func latencyResult(count: Int = 2000, centerMicroseconds: Int = 1200, seed: UInt64 = 1) -> LatencyResult {
        let recorder = recorder(count: count, centerMicroseconds: centerMicroseconds, seed: seed)
        return LatencyResult(
            command: "00A4040007A0000000041010", statusWord: "9000", responseLength: 12, warmupCount: 100,
            durationNs: recorder.totalNanoseconds + 50_000_000, statistics: recorder.statistics,
            histogram: recorder.buckets(count: 30), percentileCurve: recorder.percentileCurve,
            outliers: LatencyOutliers(
                timeExtensions: 3, discardedFrames: 0, retransmissions: 1,
                slowSamples: [
                    SlowSample(index: 97, valueNs: 4_700_000, cause: "2 time extensions"),
                    SlowSample(index: 194, valueNs: 4_650_000, cause: nil),
                ], failures: 2, firstFailure: "card removed <during> exchange & \"retry\""))
    }

    static func latencyRun() -> BenchRun {
        var run = BenchRun(
            kind: .latency, reader: usbReader, card: card, clock: "monotonic",
            method: "closed loop, 100 warm-up round trips, at least 2 s")
        run.latency = latencyResult()
        return run
    }

    static func emptyLatencyRun() -> BenchRun {
        var run = BenchRun(kind: .latency, reader: pcscReader, card: nil, clock: "monotonic", method: "closed loop")
        let recorder = LatencyRecorder()
        run.latency = LatencyResult(
            command: "00B0000010", statusWord: "", responseLength: 0, warmupCount: 0, durationNs: 0,
            statistics: recorder.statistics, histogram: [], percentileCurve: [], outliers: LatencyOutliers())
        run.interrupted = true
        run.interruption = "Ctrl-C after 0 samples"
        return run
    }

    static func sweepPoints() -> [SweepPoint] {
        var points: [SweepPoint] = []
        for size in stride(from: 0, through: 240, by: 40) {
            let command = Int64(1_000_000 + size * 95_000)
            points.append(
                SweepPoint(
                    direction: .command, commandDataLength: size, responseDataLength: 0, commandLength: 5 + size,
                    responseLength: 2, extended: false, samples: 50, medianNs: command, p10Ns: command - 40_000,
                    p90Ns: command + 90_000, minNs: command - 60_000))
            let response = Int64(1_000_000 + size * 80_000)
            points.append(
                SweepPoint(
                    direction: .response, commandDataLength: 0, responseDataLength: size, commandLength: 5,
                    responseLength: size + 2, extended: false, samples: 50, medianNs: response,
                    p10Ns: response - 30_000, p90Ns: response + 70_000, minNs: response - 50_000))
        }
        return points
    }

    static func sweepRun(fit: Bool = true) -> BenchRun {
        var run = BenchRun(
            kind: .sweep, reader: usbReader, card: card, clock: "monotonic", method: "median of 50 per size")
        run.sweep = SweepResult(
            probe: "echo", probeDescription: "UPDATE BINARY / READ BINARY of growing sizes", samplesPerPoint: 50,
            points: sweepPoints(),
            fit: fit
                ? SweepFit(
                    fixedNs: 1_000_000, perCommandByteNs: 95_000, perResponseByteNs: 80_000, rSquared: 0.99876,
                    maxResidualNs: 12_345)
                : nil)
        return run
    }

    static func operationsRun() -> BenchRun {
        var run = BenchRun(
            kind: .operations, reader: usbReader, card: card, clock: "virtual", method: "each operation 200 times")
        let operations = [
            ("authenticate AES", "full", nil, 2.0, 4200),
            ("read 32 B", "plain", 32, 1.0, 1500),
            ("read 32 B", "mac", 32, 1.0, 1700),
            ("write 128 B <data>", "full", 128, 3.0, 6100),
        ].enumerated().map { index, row in
            let recorder = recorder(count: 200, centerMicroseconds: row.4, seed: UInt64(index + 7))
            return OperationTiming(
                name: row.0, commMode: row.1, bytes: row.2, apdusPerOperation: row.3,
                statistics: recorder.statistics, writes: row.0.hasPrefix("write"))
        }
        run.operations = OperationsResult(
            family: "desfire", operations: operations,
            skipped: [SkippedOperation(name: "change key", reason: "no master key given (--key)")])
        return run
    }

    static func comparisonRun(failedSecond: Bool = false) -> BenchRun {
        var run = BenchRun(
            kind: .comparison, reader: usbReader, card: card, clock: "monotonic", method: "the same test on each path")
        let first = ComparisonSide(
            label: "cardflow", reader: usbReader, latency: latencyResult(centerMicroseconds: 1000, seed: 3),
            failure: nil)
        let second =
            failedSecond
            ? ComparisonSide(label: "pcscd", reader: pcscReader, latency: nil, failure: "SCardConnect: <no card>")
            : ComparisonSide(
                label: "pcscd", reader: pcscReader, latency: latencyResult(centerMicroseconds: 1420, seed: 4),
                failure: nil)
        run.comparison = ComparisonResult(sides: [first, second])
        return run
    }

    static func document(runs: [BenchRun]) -> BenchDocument {
        BenchDocument(
            command: ["bench", "all", "--reader", "usb:1:4:0", "--note", "<script>alert('x')</script> & co"],
            seed: 42, machine: machine, runs: runs, cardflowVersion: "0.9.0", generatedAt: "2025-01-02T03:04:05Z")
    }

    /// One run of each kind, all complete.
    static func fullDocument() -> BenchDocument {
        document(runs: [latencyRun(), sweepRun(), operationsRun(), comparisonRun()])
    }
}
