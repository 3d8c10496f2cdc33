import CardFlow
import CardFlowBench
import CardFlowSimulatorReaders
import Logging
import Testing

/// `bench sweep` against simulated readers on virtual time: the measured medians are the
/// timing model's own times, so the fit must give the model's parameters back. This checks the
/// analysis (sizes, wire lengths, least squares), not a stopwatch.
@Suite("Sweep recovers the timing model")
struct SweepRecoveryTests {
    /// Opens `selector`, runs a sweep with the detected probes, and returns the fit.
    static func sweep(_ selector: String, plan: SweepPlan) async throws -> (SweepRunner.Outcome, [String]) {
        let opened = try await SimulatorReaderSource().open(
            selector, options: ReaderSourceOptions(logger: Logger(label: "bench-test")))
        let clock = try #require(opened.clock, "clock=virtual gives the readers' clock")
        let reader = opened.readers[0]
        let outcome = try await reader.withSession { session in
            let (probes, notes) = try await SweepProbe.detect(
                on: session, fileID: nil, allowWrite: false, data: SweepData(seed: 7))
            let outcome = await SweepRunner(channel: session, probe: BenchReaderProbe(reader: reader), clock: clock)
                .run(probes: probes, plan: plan, maximumCommandLength: reader.info.capabilities.maximumCommandLength)
            return (outcome, notes)
        }
        try await opened.close()
        return outcome
    }

    static func within(_ measured: Double, _ expected: Double, _ tolerance: Double) -> Bool {
        abs(measured - expected) <= abs(expected) * tolerance
    }

    @Test("USB round trip, firmware and per-byte costs come back within 5 % (they are linear: exactly)")
    func linearModel() async throws {
        let (outcome, notes) = try await Self.sweep(
            "sim:apdu-test,usb=1,firmware=0.3,cmd-byte=20,resp-byte=12,clock=virtual",
            plan: SweepPlan(step: 32, samplesPerPoint: 5, warmupPerPoint: 1))
        #expect(notes.isEmpty)
        #expect(outcome.interruption == nil)
        let fit = try #require(outcome.result.fit)
        // The model: 1 ms + 0.3 ms + 20 µs per command byte + 12 µs per response byte; an APDU
        // with no data is a 5-byte command and a 2-byte answer.
        #expect(Self.within(fit.perCommandByteNs, 20_000, 0.05), "per command byte \(fit.perCommandByteNs)")
        #expect(Self.within(fit.perResponseByteNs, 12_000, 0.05), "per response byte \(fit.perResponseByteNs)")
        let expectedFixed: Double = 1_300_000 + 5 * 20_000 + 2 * 12_000
        #expect(Self.within(fit.fixedNs, expectedFixed, 0.05), "fixed \(fit.fixedNs)")
        #expect(fit.rSquared > 0.999)
        #expect(outcome.result.points.contains { $0.direction == .command && $0.commandDataLength == 255 })
        #expect(outcome.result.points.contains { $0.direction == .response && $0.responseDataLength == 256 })
    }

    @Test("an ISO 14443 link at 106 kbit/s shows 9 etu per byte each way within 5 %")
    func radioModel() async throws {
        // fsc=256 and sizes up to 240 keep every APDU in one I-block, so no chaining steps.
        let (outcome, _) = try await Self.sweep(
            "sim:apdu-test,usb=1,rf=106,fsc=256,clock=virtual",
            plan: SweepPlan(step: 24, samplesPerPoint: 3, warmupPerPoint: 1, maximumSize: 240))
        let fit = try #require(outcome.result.fit)
        let byteTime: Double = 9 * 128 / 13.56e6 * 1e9 // 9 etu at 106 kbit/s, in ns
        #expect(Self.within(fit.perCommandByteNs, byteTime, 0.05), "per command byte \(fit.perCommandByteNs)")
        #expect(Self.within(fit.perResponseByteNs, byteTime, 0.05), "per response byte \(fit.perResponseByteNs)")
        // Fixed: USB + frame delay + 2 × (4 bytes of block framing + 2 etu) + the 7 header/SW bytes.
        let etu: Double = 128 / 13.56e6 * 1e9
        let framing: Double = 2 * (4 * byteTime + 2 * etu)
        let expectedFixed: Double = 1_000_000 + 86_430 + framing + 7 * byteTime
        #expect(Self.within(fit.fixedNs, expectedFixed, 0.05), "fixed \(fit.fixedNs) vs \(expectedFixed)")
    }

    @Test("extended sizes are measured, left out of the fit, and show the USB messages they take")
    func extendedSizes() async throws {
        let (outcome, _) = try await Self.sweep(
            "sim:apdu-test,usb=1,cmd-byte=2,resp-byte=3,clock=virtual",
            plan: SweepPlan(step: 64, includeExtended: true, samplesPerPoint: 3, warmupPerPoint: 0))
        let extended = outcome.result.points.filter(\.extended)
        let fit = try #require(outcome.result.fit)
        // The default simulated reader is an extended-APDU reader: the 4096-byte answer is there.
        #expect(extended.contains { $0.direction == .response && $0.responseDataLength == 4096 })
        #expect(Self.within(fit.perCommandByteNs, 2_000, 0.05))
        #expect(Self.within(fit.perResponseByteNs, 3_000, 0.05))
        #expect(fit.maxResidualNs < 1_000)
        // Each extended answer is chained over several 1 ms USB messages: above the line.
        for point in extended {
            let line =
                fit.fixedNs + Double(point.commandLength - 5) * fit.perCommandByteNs
                + Double(point.responseLength - 2) * fit.perResponseByteNs
            #expect(Double(point.medianNs) >= line + 900_000, "\(point)")
        }
    }

    @Test("a card without the test applet is swept with SELECT by name, and the notes say why answers are not")
    func selectNameFallback() async throws {
        let (outcome, notes) = try await Self.sweep(
            "sim:iso7816,usb=1,cmd-byte=10,clock=virtual", plan: SweepPlan(step: 64, samplesPerPoint: 2))
        #expect(notes.contains { $0.contains("--file") })
        #expect(outcome.result.points.allSatisfy { $0.direction == .command })
        let fit = try #require(outcome.result.fit)
        #expect(Self.within(fit.perCommandByteNs, 10_000, 0.05))
        #expect(fit.perResponseByteNs == 0)
    }
}
