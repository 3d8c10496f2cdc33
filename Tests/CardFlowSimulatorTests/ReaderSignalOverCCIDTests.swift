import CardFlow
import CardFlowCCID
import CardFlowCCIDProtocol
import CardFlowSimulator
import CardFlowSimulatorCards
import Testing

/// `Reader.signal` through the CCID driver (PC_to_RDR_Escape) to simulated readers whose
/// firmware was written from the ACS manuals, with no card on the reader.
@Suite("Reader signals over CCID escape")
struct ReaderSignalOverCCIDTests {
    static func acr1252u() -> VirtualCCIDReader {
        VirtualCCIDReader(
            configuration: VirtualReaderConfiguration(
                name: "ACS ACR1252 Dual Reader", vendorID: 0x072F, productID: 0x223B))
    }

    static func acr122u() -> VirtualCCIDReader {
        VirtualCCIDReader(
            configuration: VirtualReaderConfiguration(
                name: "ACS ACR122U PICC Interface", vendorID: 0x072F, productID: 0x2200, bcdDevice: 0x0207,
                descriptor: CCIDClassDescriptor(
                    features: [.automaticParameterNegotiation, .shortAPDULevel], maxMessageLength: 271)))
    }

    @Test("ACR1252U: success lights green and beeps 100 ms, failure red and 500 ms, with no card")
    func acr1252uSuccessAndFailure() async throws {
        let virtual = Self.acr1252u()
        let reader = Reader.simulated(virtual)
        try await reader.signal(.success)
        var panel = try #require(await virtual.panel())
        #expect(panel.green && !panel.red)
        #expect(panel.beeps == [.milliseconds(100)])
        try await reader.signal(.failure)
        panel = try #require(await virtual.panel())
        #expect(panel.red && !panel.green)
        #expect(panel.beeps == [.milliseconds(100), .milliseconds(500)])
    }

    @Test("ACR1252U: a blink or a double beep is unsupported, named, and nothing is sent")
    func acr1252uUnsupportedParts() async throws {
        let virtual = Self.acr1252u()
        let reader = Reader.simulated(virtual, id: "sim:7")
        for signal in [ReaderSignal(light: .flash), ReaderSignal(beep: .double), ReaderSignal(light: .alternating)] {
            let error = await #expect(throws: ReaderSignalUnsupported.self) { try await reader.signal(signal) }
            #expect(error?.reader == "sim:7")
            #expect(error?.reason != nil)
            #expect(error?.category == .usage)
        }
        #expect(await virtual.panel() == SimulatedReaderPanel())
    }

    @Test("ACR122U: FF 00 40 through escape sets the final LED state and sounds Reps beeps")
    func acr122uSignals() async throws {
        let virtual = Self.acr122u()
        let reader = Reader.simulated(virtual)
        try await reader.signal(.failure)
        var panel = try #require(await virtual.panel())
        #expect(panel.red && !panel.green)
        #expect(panel.beeps == [.milliseconds(500)])
        try await reader.signal(ReaderSignal(light: .green, beep: .triple))
        panel = try #require(await virtual.panel())
        #expect(panel.green && !panel.red)
        #expect(panel.beeps.suffix(3) == Array(repeating: .milliseconds(100), count: 3))
        try await reader.signal(ReaderSignal(light: .alternating))
        #expect(try #require(await virtual.panel()).blinkSequences == 1)
        await #expect(throws: ReaderSignalUnsupported.self) { try await reader.signal(ReaderSignal(beep: .melody)) }
    }

    @Test("a reader of no known family (1209:2702) answers ReaderSignalUnsupported with its id")
    func unknownFamily() async throws {
        let virtual = VirtualCCIDReader(configuration: VirtualReaderConfiguration(vendorID: 0x1209, productID: 0x2702))
        let reader = Reader.simulated(virtual, id: "sim:3")
        #expect(reader.ccid?.signalDialect == nil)
        let error = await #expect(throws: ReaderSignalUnsupported.self) { try await reader.signal(.success) }
        #expect(error?.reader == "sim:3")
        #expect(error?.backend == reader.info.backend)
    }

    @Test("an escape the ACR1252U firmware does not know fails with CMD_NOT_SUPPORTED, status carried")
    func unknownEscape() async throws {
        let virtual = Self.acr1252u()
        let driver = try #require(Reader.simulated(virtual).ccid)
        let error = await #expect(throws: CCIDDriverError.self) {
            _ = try await driver.driver.escape([0xE0, 0x00, 0x00, 0x77, 0x00])
        }
        guard case .slotError(let slotError, _, during: .escape)? = error else {
            Issue.record("expected a slot error during PC_to_RDR_Escape, got \(String(describing: error))")
            return
        }
        #expect(slotError == .commandNotSupported)
        // The manual's LED status read answers the state without changing it.
        #expect(
            try await driver.driver.escape([0xE0, 0x00, 0x00, 0x29, 0x00]) == [0xE1, 0x00, 0x00, 0x00, 0x01, 0x00])
    }

    @Test("a refused answer is ReaderSignalRefused, a reader error")
    func refusedAnswer() throws {
        let dialect = ACR1252USignalDialect()
        let command = try #require(try dialect.commands(for: .success).first)
        let error = #expect(throws: ReaderSignalRefused.self) { try dialect.check([0x63, 0x00], to: command) }
        #expect(error?.category == .reader)
        #expect(error?.answer == [0x63, 0x00])
    }

    @Test("a cancelled task sends nothing")
    func cancelled() async throws {
        let virtual = Self.acr1252u()
        let reader = Reader.simulated(virtual)
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            try await reader.signal(.success)
        }
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(await virtual.panel() == SimulatedReaderPanel())
    }
}
