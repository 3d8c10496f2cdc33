import CardFlow
import CardFlowCCID
import CardFlowCCIDProtocol
import CardFlowSimulator
import Testing

@Suite("CCID driver against the simulated reader")
struct CCIDDriverTests {
    @Test(
        "short, extended and TPDU readers answer the same APDUs",
        arguments: [CCIDExchangeLevel.shortAPDU, .extendedAPDU, .tpdu])
    func everyExchangeLevel(_ level: CCIDExchangeLevel) async throws {
        let harness = await SimulatedReaderHarness(.level(level))
        let atr = try await harness.driver.powerOn()
        #expect(atr == [0x3B, 0x81, 0x80, 0x01, 0x80, 0x80])
        let select = try await harness.driver.transmit(selectApplication)
        #expect(select.suffix(2) == [0x90, 0x00])
        let read = try await harness.driver.transmit(readEF0101)
        #expect(read == (0..<32).map { UInt8($0) } + [0x90, 0x00])
        #expect(try await harness.driver.slotStatus().icc == .presentActive)
        try await harness.driver.powerOff()
        #expect(try await harness.driver.slotStatus().icc == .presentInactive)
    }

    @Test(
        "extended APDUs up to 65535 bytes through a reader with a 271-byte message limit",
        arguments: [300, 4096, 65_535])
    func extendedChaining(_ count: Int) async throws {
        let harness = await SimulatedReaderHarness(.level(.extendedAPDU, maxMessageLength: 271), card: EchoCard())
        _ = try await harness.driver.powerOn()
        let command = extendedEchoCommand(count: count)
        let response = try await harness.driver.transmit(command)
        #expect(response.count == count + 2)
        #expect(Array(response.prefix(count)) == Array(command[7..<(7 + count)]))
        #expect(response.suffix(2) == [0x90, 0x00])
    }

    @Test func shortReaderRefusesOversizedCommands() async throws {
        let harness = await SimulatedReaderHarness(.level(.shortAPDU, maxMessageLength: 271), card: EchoCard())
        _ = try await harness.driver.powerOn()
        await #expect(throws: CCIDDriverError.commandTooLong(length: 309, maximum: 261)) {
            try await harness.driver.transmit(extendedEchoCommand(count: 300))
        }
        // A command that fits still works afterwards.
        #expect(try await harness.driver.transmit(extendedEchoCommand(count: 200)).count == 202)
    }

    @Test("T=1 chaining both ways, with IFSC 32 and the reader's IFSD", arguments: [32, 254])
    func tpduChaining(_ ifsd: UInt32) async throws {
        var configuration = VirtualReaderConfiguration.level(.tpdu, maxMessageLength: 271)
        configuration.descriptor.maxIFSD = ifsd
        let harness = await SimulatedReaderHarness(configuration, card: EchoCard())
        _ = try await harness.driver.powerOn()
        let command = extendedEchoCommand(count: 1000)
        let response = try await harness.driver.transmit(command)
        #expect(Array(response.prefix(1000)) == Array(command[7..<1007]))
        #expect(response.suffix(2) == [0x90, 0x00])
    }

    @Test func tpduRecoversFromCorruptBlocksAndWaitingTimeExtensions() async throws {
        let harness = await SimulatedReaderHarness(.level(.tpdu), card: EchoCard())
        _ = try await harness.driver.powerOn()
        await harness.reader.inject(.corruptT1Block)
        await harness.reader.inject(.cardWaitingTimeExtension(multiplier: 3))
        let command = extendedEchoCommand(count: 100)
        let response = try await harness.driver.transmit(command)
        #expect(Array(response.prefix(100)) == Array(command[7..<107]))
    }

    @Test func timeExtensionsAreFollowedAndBounded() async throws {
        let harness = await SimulatedReaderHarness()
        _ = try await harness.driver.powerOn()
        await harness.reader.inject(.timeExtensions(count: 5, multiplier: 2))
        #expect(try await harness.driver.transmit(selectApplication).suffix(2) == [0x90, 0x00])

        var bounded = SimulatedReaderHarness.fastFailing
        bounded.maxTimeExtensions = 3
        let strict = await SimulatedReaderHarness(driverConfiguration: bounded)
        _ = try await strict.driver.powerOn()
        await strict.reader.inject(.timeExtensions(count: 10, multiplier: 1))
        await #expect(throws: CCIDDriverError.timeExtensionLimitExceeded(count: 4, during: .xfrBlock)) {
            try await strict.driver.transmit(selectApplication)
        }
    }

    /// A real device's time extensions carry bError 00, no multiplier at all: a Pico HSM (RP2040
    /// firmware) answered an RSA 4096 signature with two DataBlocks of bStatus 80, bError 00 and
    /// no data, about 1.5 s apart, then the 514-byte answer, all with the command's bSeq (Wireshark
    /// capture in github.com/polhenarejos/pico-hsm/issues/80). The next read waits the usual time,
    /// not zero; the answer here comes 50 ms after the extensions.
    @Test func timeExtensionsWithoutAMultiplierWaitTheUsualTime() async throws {
        var configuration = VirtualReaderConfiguration()
        configuration.timing = TimingModel(extraLatency: .milliseconds(50))
        let harness = await SimulatedReaderHarness(configuration, card: EchoCard())
        _ = try await harness.driver.powerOn()
        await harness.reader.inject(.timeExtensions(count: 2, multiplier: 0))
        let command = extendedEchoCommand(count: 512)
        let response = try await harness.driver.transmit(command)
        #expect(response == Array(command[7..<519]) + [0x90, 0x00])
        #expect(await harness.driver.counters.timeExtensions == 2)
    }

    @Test func staleFramesAreDiscarded() async throws {
        let harness = await SimulatedReaderHarness()
        _ = try await harness.driver.powerOn()
        await harness.reader.inject(.staleFrame)
        #expect(try await harness.driver.transmit(selectApplication).suffix(2) == [0x90, 0x00])
        await harness.reader.inject(.staleFrame)
        #expect(try await harness.driver.transmit(readEF0101) == (0..<32).map { UInt8($0) } + [0x90, 0x00])
    }

    @Test func readerFaultsGiveTypedErrorsAndTheReaderStaysUsable() async throws {
        let cases: [(ReaderFault, (CCIDDriverError) -> Bool)] = [
            (.wrongSequence, { if case .transport(.timeout, _) = $0 { true } else { false } }),
            (.noResponse, { if case .transport(.timeout, _) = $0 { true } else { false } }),
            (.shortResponse, { if case .malformedResponse = $0 { true } else { false } }),
            (.stall, { if case .transport(.stall, _) = $0 { true } else { false } }),
            (.iccMute, { $0 == .cardMute(during: .xfrBlock) }),
            (.hardwareError, { if case .slotError(.hardwareError, _, .xfrBlock) = $0 { true } else { false } }),
        ]
        for (fault, matches) in cases {
            let harness = await SimulatedReaderHarness()
            _ = try await harness.driver.powerOn()
            await harness.reader.inject(fault)
            do {
                _ = try await harness.driver.transmit(selectApplication)
                Issue.record("\(fault) did not fail")
            } catch let error as CCIDDriverError {
                #expect(matches(error), "\(fault) gave \(error)")
            }
            // The next exchange works again (a stalled read leaves its answer queued: drain it first).
            if fault == .stall { _ = try? await harness.driver.slotStatus() }
            #expect(try await harness.driver.transmit(selectApplication).suffix(2) == [0x90, 0x00], "after \(fault)")
        }
    }

    @Test func hardwareErrorIsAlsoSignalledOnTheInterruptPipe() async throws {
        let harness = await SimulatedReaderHarness()
        _ = try await harness.driver.powerOn()
        _ = try await harness.driver.readInterrupt(timeout: .milliseconds(10)) // the insertion notice
        await harness.reader.inject(.hardwareError)
        _ = try? await harness.driver.transmit(selectApplication)
        let message = try await harness.driver.readInterrupt(timeout: .milliseconds(100))
        guard case .hardwareError(slot: 0, _, code: 1) = message else {
            Issue.record("expected a HardwareError interrupt, got \(String(describing: message))")
            return
        }
    }

    @Test func unplugFailsFastAndStaysFailed() async throws {
        let harness = await SimulatedReaderHarness()
        _ = try await harness.driver.powerOn()
        await harness.reader.inject(.unplug)
        await #expect(throws: CCIDDriverError.transport(.noDevice, during: .xfrBlock)) {
            try await harness.driver.transmit(selectApplication)
        }
        await #expect(throws: CCIDDriverError.transport(.noDevice, during: .getSlotStatus)) {
            try await harness.driver.slotStatus()
        }
    }

    @Test func cardPresenceAndRemoval() async throws {
        let harness = await SimulatedReaderHarness(card: nil)
        #expect(try await harness.driver.slotStatus().icc == .absent)
        await #expect(throws: CCIDDriverError.noCard) { try await harness.driver.powerOn() }
        await harness.reader.insert(ISO7816Card(seed: 2))
        #expect(
            try await harness.driver.readInterrupt(timeout: .milliseconds(50))
                == .slotChange([.init(slot: 0, cardPresent: true, changed: true)]))
        _ = try await harness.driver.powerOn()
        _ = try await harness.driver.transmit(selectApplication)
        await harness.reader.removeCard()
        #expect(
            try await harness.driver.readInterrupt(timeout: .milliseconds(50))
                == .slotChange([.init(slot: 0, cardPresent: false, changed: true)]))
        await #expect(throws: CCIDDriverError.noCard) { try await harness.driver.transmit(selectApplication) }
        await #expect(throws: CCIDDriverError.cardNotPowered(slot: 0)) {
            try await harness.driver.transmit(selectApplication)
        }
    }

    @Test func liftedCardReturnsOnSchedule() async throws {
        let clock = ManualClock()
        let harness = await SimulatedReaderHarness(clock: clock)
        await harness.reader.liftCard(afterAPDUs: 1, returnAfter: .milliseconds(500))
        _ = try await harness.driver.powerOn()
        _ = try await harness.driver.transmit(selectApplication)
        await #expect(throws: CCIDDriverError.noCard) { try await harness.driver.transmit(selectApplication) }
        #expect(try await harness.driver.slotStatus().icc == .absent)
        await clock.advance(by: .milliseconds(500))
        #expect(try await harness.driver.slotStatus().icc == .presentInactive)
        _ = try await harness.driver.powerOn()
        #expect(try await harness.driver.transmit(selectApplication).suffix(2) == [0x90, 0x00])
    }

    @Test func aCardTakenAwayByHandDoesNotComeBackFromAnEarlierLift() async throws {
        let clock = ManualClock()
        let harness = await SimulatedReaderHarness(clock: clock)
        await harness.reader.liftCard(afterAPDUs: 1, returnAfter: .milliseconds(500))
        _ = try await harness.driver.powerOn()
        _ = try await harness.driver.transmit(selectApplication)
        // Lifted; before it would return, someone takes the card away for good.
        await harness.reader.removeCard()
        await clock.advance(by: .milliseconds(600))
        #expect(try await harness.driver.slotStatus().icc == .absent)
        #expect(await harness.reader.card() == nil)
    }

    @Test func aLiftPlannedForOneCardDoesNotStrikeTheNext() async throws {
        let harness = await SimulatedReaderHarness()
        await harness.reader.liftCard(afterAPDUs: 2)
        await harness.reader.removeCard()
        await harness.reader.insert(ISO7816Card(seed: 8))
        _ = try await harness.driver.powerOn()
        for _ in 0..<4 { #expect(try await harness.driver.transmit(selectApplication).suffix(2) == [0x90, 0x00]) }
    }

    @Test func cancellationAbortsTheTransferAndLeavesTheReaderUsable() async throws {
        var configuration = VirtualReaderConfiguration()
        configuration.timing.extraLatency = .seconds(30)
        let clock = ManualClock()
        var patient = SimulatedReaderHarness.fastFailing
        patient.readTimeout = .seconds(60)
        let harness = await SimulatedReaderHarness(configuration, clock: clock, driverConfiguration: patient)
        _ = try await harness.driver.powerOn()
        let driver = harness.driver
        let pending = Task { try await driver.transmit(selectApplication) }
        // Let the command reach the reader and the read start waiting on the (manual) clock.
        while await clock.sleeperCount == 0 { await Task.yield() }
        pending.cancel()
        await #expect(throws: CancellationError.self) { try await pending.value }
        // The abort handshake consumed the aborted answer: the next command gets its own.
        #expect(try await harness.driver.slotStatus().icc == .presentActive)
        let next = Task { try await driver.transmit(readEF0101) }
        while await clock.sleeperCount == 0 { await Task.yield() }
        await clock.advance(by: .seconds(30))
        // The card had selected the application before the answer was aborted.
        #expect(try await next.value == (0..<32).map { UInt8($0) } + [0x90, 0x00])
    }

    @Test func commandsFromManyTasksAreSerialised() async throws {
        let harness = await SimulatedReaderHarness()
        _ = try await harness.driver.powerOn()
        _ = try await harness.driver.transmit(selectApplication)
        let driver = harness.driver
        let results = try await withThrowingTaskGroup(of: [UInt8].self) { group in
            for _ in 0..<100 { group.addTask { try await driver.transmit(readEF0101) } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(results.count == 100)
        #expect(results.allSatisfy { $0 == (0..<32).map { UInt8($0) } + [0x90, 0x00] })
    }

    @Test func randomFaultsNeverCrashOrHang() async throws {
        var random = SeededRandom(seed: 7)
        let faults: [ReaderFault] = [
            .garbledResponse, .shortResponse, .staleFrame, .wrongSequence, .noResponse,
            .iccMute, .timeExtensions(count: 2, multiplier: 1), .stall,
        ]
        var configuration = SimulatedReaderHarness.fastFailing
        configuration.readTimeout = .milliseconds(20)
        for level in [CCIDExchangeLevel.shortAPDU, .extendedAPDU, .tpdu] {
            var readerConfiguration = VirtualReaderConfiguration.level(level)
            readerConfiguration.seed = random.next()
            let harness = await SimulatedReaderHarness(
                readerConfiguration, card: EchoCard(), driverConfiguration: configuration)
            _ = try await harness.driver.powerOn()
            var successes = 0
            for _ in 0..<60 {
                if random.next() % 3 == 0 {
                    await harness.reader.inject(faults[Int(random.next() % UInt64(faults.count))])
                }
                let command = extendedEchoCommand(count: Int(random.next() % 200) + 1)
                do {
                    let response = try await harness.driver.transmit(command)
                    #expect(Array(response.dropLast(2)) == Array(command[7..<(command.count - 2)]))
                    successes += 1
                } catch let error as CCIDDriverError {
                    // Typed, and recoverable by powering the card on again.
                    _ = error
                    _ = try? await harness.driver.slotStatus()
                    _ = try? await harness.driver.powerOn()
                }
            }
            #expect(successes > 20, "level \(level)")
        }
    }
}
