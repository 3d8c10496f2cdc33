import CardFlow
import CardFlowCCID
import CardFlowCCIDProtocol
import CardFlowSimulator
import CardFlowSimulatorUSB
import Foundation
import Testing

/// The real libusb transport and CCID driver, unchanged, against emulated USB readers.
extension USBIntegration {
    @Suite("libusb transport and CCID driver") struct LibUSBDriverTests {}
}

/// An emulated reader with a unique serial number, opened through LibUSBContext.openDriver.
struct OpenedUSBReader {
    let virtual: VirtualCCIDReader
    let emulated: EmulatedUSBReader
    let context: LibUSBContext
    let transport: LibUSBTransport
    let driver: CCIDDriver
    let description: USBReaderDescription

    static func make(
        _ testbed: USBTestbed, configuration: VirtualReaderConfiguration = VirtualReaderConfiguration(),
        card: (any VirtualCard)? = ISO7816Card(seed: 1), readTimeout: Duration = .seconds(2),
        clock: any ElapsedClock = RealClock()
    ) async throws -> OpenedUSBReader {
        var configuration = configuration
        let serial = "CF\(UInt32.random(in: 0...UInt32.max))"
        configuration.serialNumber = serial
        let virtual = VirtualCCIDReader(configuration: configuration, clock: clock)
        if let card { await virtual.insert(card) }
        let emulated = try testbed.attach(virtual)
        let context = try LibUSBContext()
        var driverConfiguration = CCIDDriverConfiguration()
        driverConfiguration.readTimeout = readTimeout
        do {
            let (description, transport, driver) = try context.openDriver(
                .serialNumber(serial), configuration: driverConfiguration)
            return OpenedUSBReader(
                virtual: virtual, emulated: emulated, context: context, transport: transport,
                driver: driver, description: description)
        } catch {
            context.close()
            await emulated.unplug()
            throw error
        }
    }

    func close() async {
        transport.close()
        context.close()
        await emulated.unplug()
    }
}

private let select: [UInt8] = [0x00, 0xA4, 0x04, 0x00, 0x07, 0xA0, 0x00, 0x00, 0x02, 0x47, 0x10, 0x01]
private let readEF0101: [UInt8] = [0x00, 0xB0, 0x81, 0x00, 0x20]
private let ef0101 = (0..<32).map { UInt8($0) } + [0x90, 0x00]

extension USBIntegration.LibUSBDriverTests {
    @Test(
        "APDUs on short-APDU, extended-APDU and TPDU readers over libusb",
        arguments: [CCIDExchangeLevel.shortAPDU, .extendedAPDU, .tpdu])
    func exchangeLevels(_ level: CCIDExchangeLevel) async throws {
        guard let testbed = try MockEnvironment.testbed() else { return }
        let card = ISO7816Card(seed: 3, options: ISO7816CardOptions(extendedLength: true, maxResponseLength: 65_536))
        let reader = try await OpenedUSBReader.make(testbed, configuration: .level(level), card: card)
        #expect(reader.description.descriptor.exchangeLevel == level)
        #expect(try await reader.driver.powerOn() == [0x3B, 0x81, 0x80, 0x01, 0x80, 0x80])
        #expect(try await reader.driver.transmit(select).suffix(2) == [0x90, 0x00])
        #expect(try await reader.driver.transmit(readEF0101) == ef0101)
        if level != .shortAPDU {
            // 1000 bytes of EF 0102 with an extended Le: chained over several 271-byte messages
            // (extended level) or T=1 blocks (TPDU level).
            let long = try await reader.driver.transmit([0x00, 0xB0, 0x82, 0x00, 0x00, 0x03, 0xE8])
            #expect(long.count == 1002)
            #expect(Array(long.prefix(1000)) == (0..<1000).map { UInt8($0 % 251) })
        }
        await reader.close()
    }

    @Test func sessionsAndFlowsRunOverUSB() async throws {
        guard let testbed = try MockEnvironment.testbed() else { return }
        let opened = try await OpenedUSBReader.make(testbed)
        let info = ReaderInfo(
            id: "usb", name: opened.description.name, vendorID: opened.description.vendorID,
            productID: opened.description.productID, descriptor: opened.driver.descriptor)
        let reader = Reader(info: info, driver: opened.driver)
        let flow = Flow.start("select") { session in try await session.send(try CommandAPDU(bytes: select)).statusWord }
            .then("read") { _, session in try await session.send(try CommandAPDU(bytes: readEF0101)).data }
        #expect(try await reader.run(flow).value == Array(ef0101.dropLast(2)))
        await opened.close()
    }

    @Test func cardInsertAndRemoveEvents() async throws {
        guard let testbed = try MockEnvironment.testbed() else { return }
        let reader = try await OpenedUSBReader.make(testbed)
        let driver = reader.driver
        let source = USBCardEventSource(transport: reader.transport) { slot in
            try await driver.slotStatus(slot: slot).icc != .absent
        }
        var events = source.events().makeAsyncIterator()
        // First a snapshot of the slot (then possibly the insertion notice queued before we listened).
        #expect(await events.next() == .slotChange([.init(slot: 0, cardPresent: true, changed: false)]))
        /// The next notification whose slot 0 state is `present` (skipping repeats), bounded.
        func next(present: Bool) async -> CCIDInterruptMessage.SlotChange? {
            for _ in 0..<4 {
                guard case .slotChange(let changes)? = await events.next() else { return nil }
                if let change = changes.first, change.cardPresent == present { return change }
            }
            return nil
        }
        await reader.virtual.removeCard()
        #expect(await next(present: false)?.changed == true)
        await reader.virtual.insert(ISO7816Card(seed: 5))
        #expect(await next(present: true)?.changed == true)
        await reader.close()
        var remaining = 0
        while await events.next() != nil { remaining += 1 }
        #expect(remaining < 4, "the stream ends when the reader is unplugged")
    }

    @Test func cancellingAnAPDUCancelsTheTransferAndAborts() async throws {
        guard let testbed = try MockEnvironment.testbed() else { return }
        let reader = try await OpenedUSBReader.make(testbed, readTimeout: .seconds(30))
        let driver = reader.driver
        _ = try await driver.powerOn()
        await reader.virtual.inject(.noResponse)
        let pending = Task { try await driver.transmit(select) }
        // Cancel once the SELECT is at the reader (it took the injected fault), not after a fixed
        // 100 ms: on a loaded machine the task could still be short of the driver then, so the
        // cancellation came before the transfer and left the fault for the next SELECT.
        let deadline = ContinuousClock.now + .seconds(60)
        while await reader.virtual.pendingFaultCount > 0, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(2))
        }
        #expect(await reader.virtual.pendingFaultCount == 0, "the SELECT did not reach the reader")
        pending.cancel()
        await #expect(throws: CancellationError.self) { try await pending.value }
        // The CCID abort handshake went through; the reader answers the next APDU.
        #expect(try await driver.transmit(select).suffix(2) == [0x90, 0x00])
        await reader.close()
    }

    @Test func timeoutsAndTimeExtensionsAreTyped() async throws {
        guard let testbed = try MockEnvironment.testbed() else { return }
        let reader = try await OpenedUSBReader.make(testbed, readTimeout: .milliseconds(300))
        _ = try await reader.driver.powerOn()
        await reader.virtual.inject(.noResponse)
        do {
            _ = try await reader.driver.transmit(select)
            Issue.record("no timeout")
        } catch CCIDDriverError.transport(.timeout(_, let after), .xfrBlock) {
            #expect(after == .milliseconds(300))
        }
        await reader.virtual.inject(.timeExtensions(count: 3, multiplier: 2))
        #expect(try await reader.driver.transmit(select).suffix(2) == [0x90, 0x00])
        await reader.virtual.inject(.stall)
        await #expect(throws: CCIDDriverError.self) { try await reader.driver.transmit(select) }
        #expect(try await reader.driver.transmit(select).suffix(2) == [0x90, 0x00], "the halt was cleared")
        await reader.close()
    }

    @Test func unplugMidTransferFailsFast() async throws {
        guard let testbed = try MockEnvironment.testbed() else { return }
        let reader = try await OpenedUSBReader.make(testbed, readTimeout: .seconds(30))
        let driver = reader.driver
        _ = try await driver.powerOn()
        await reader.virtual.inject(.noResponse)
        let pending = Task { try await driver.transmit(select) }
        try await Task.sleep(for: .milliseconds(100))
        let unplugged = ContinuousClock.now
        await reader.emulated.unplug()
        await #expect(throws: CCIDDriverError.transport(.noDevice, during: .xfrBlock)) { try await pending.value }
        #expect(ContinuousClock.now - unplugged < .seconds(10), "not the 30 s read timeout")
        #expect(reader.transport.isDeviceGone)
        await #expect(throws: CCIDDriverError.transport(.noDevice, during: .getSlotStatus)) {
            try await driver.slotStatus()
        }
        reader.transport.close()
        reader.context.close()
    }

    @Test func hotplugReportsArrivalAndDeparture() async throws {
        guard let testbed = try MockEnvironment.testbed() else { return }
        let context = try LibUSBContext()
        defer { context.close() }
        var events = context.readerEvents().makeAsyncIterator()
        let serial = "HOTPLUG\(UInt32.random(in: 0...UInt32.max))"
        let virtual = VirtualCCIDReader(configuration: VirtualReaderConfiguration(serialNumber: serial))
        let emulated = try testbed.attach(virtual)
        var arrived: USBReaderDescription?
        while let event = await events.next() {
            if case .arrived(let description) = event, description.serialNumber == serial {
                arrived = description; break
            }
        }
        let description = try #require(arrived)
        await emulated.unplug()
        var left = false
        while let event = await events.next() {
            if case .left(let bus, let address) = event, bus == description.bus, address == description.address {
                left = true; break
            }
        }
        #expect(left)
    }

    @Test func aClaimedInterfaceGivesABusyErrorNamingTheLikelyOwner() async throws {
        guard let testbed = try MockEnvironment.testbed() else { return }
        let reader = try await OpenedUSBReader.make(testbed)
        let second = try LibUSBContext()
        defer { second.close() }
        do {
            _ = try second.openDriver(for: reader.description)
            Issue.record("a second claim succeeded")
        } catch let error {
            guard case .busy(let detail) = error else { Issue.record("expected busy, got \(error)"); return }
            #expect(detail.contains("pcscd"))
        }
        await reader.close()
    }
}

extension USBIntegration.LibUSBDriverTests {
    @Test func registryOpensArrivingReadersAndDropsLeavingOnes() async throws {
        guard let testbed = try MockEnvironment.testbed() else { return }
        let registry = try USBReaderRegistry()
        var events = await registry.events().makeAsyncIterator()
        let serial = "REG\(UInt32.random(in: 0...UInt32.max))"
        let virtual = VirtualCCIDReader(configuration: VirtualReaderConfiguration(serialNumber: serial))
        await virtual.insert(ISO7816Card(seed: 8))
        let emulated = try testbed.attach(virtual)
        var added: Reader?
        while let event = await events.next() {
            if case .added(let reader) = event, reader.info.vendorID == 0x072F { added = reader; break }
        }
        let reader = try #require(added)
        let uid = try await reader.withSession { session in await session.identity.uid }
        #expect(uid == ISO7816Card.uid(fromSeed: 8))
        await emulated.unplug()
        var removed = false
        while let event = await events.next() {
            if case .removed(let info) = event, info.id == reader.info.id { removed = true; break }
        }
        #expect(removed)
        await registry.close()
    }
}
