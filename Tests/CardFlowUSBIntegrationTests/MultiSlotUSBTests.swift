import CardFlow
import CardFlowCCID
import CardFlowCCIDProtocol
import CardFlowSimulator
import CardFlowSimulatorUSB
import Foundation
import Testing

/// A card that takes `delay` on the reader's clock for every APDU and echoes its data.
private struct DelayedEchoCard: VirtualCard {
    let delay: Duration
    let marker: UInt8
    var kind: String { "delayed-echo" }
    var technology: ContactlessTechnology { .desfireTypeA }
    var uid: [UInt8] { [0x04, marker, 0x02, 0x03, 0x04, 0x05, 0x06] }
    mutating func powerOn() {}
    func processingTime(for command: [UInt8]) -> Duration { delay }
    mutating func process(_ command: [UInt8]) -> [UInt8] { [marker, command.count > 1 ? command[1] : 0, 0x90, 0x00] }
}

private actor Finished {
    private(set) var slots: [Int] = []
    func note(_ slot: Int) { slots.append(slot) }
}

extension USBIntegration {
    @Suite("Multi-slot reader over libusb") struct MultiSlotUSBTests {}
}

extension USBIntegration.MultiSlotUSBTests {
    // The time limit ends a driver that holds slot 1 behind slot 0 (it would wait for ever on the
    // manual clock) as a failure.
    @Test(
        "a 2-slot emulated reader: one Reader per slot; slot 1 answers while slot 0's card is still working",
        .timeLimit(.minutes(2)))
    func twoSlotsOverLibUSB() async throws {
        guard let testbed = try MockEnvironment.testbed() else { return }
        var configuration = VirtualReaderConfiguration()
        configuration.descriptor.maxSlotIndex = 1
        configuration.descriptor.maxBusySlots = 2
        // Slot 0's card answers only when the test moves the reader's clock, so slot 1's whole session
        // (connect, power-on, identity, APDU through umockdev) cannot lose a race with it however long
        // a busy machine takes; the long read time-out lets the driver wait for slot 0 meanwhile.
        let clock = ManualClock()
        let opened = try await OpenedUSBReader.make(
            testbed, configuration: configuration,
            card: DelayedEchoCard(delay: .milliseconds(1500), marker: 0xA0),
            readTimeout: .seconds(60), clock: clock)
        await opened.virtual.insert(DelayedEchoCard(delay: .zero, marker: 0xB1), slot: 1)
        #expect(opened.driver.descriptor.slotCount == 2)
        let info = ReaderInfo(
            id: "usb:test", name: opened.description.name, vendorID: opened.description.vendorID,
            productID: opened.description.productID, descriptor: opened.driver.descriptor)
        let readers = Reader.slotReaders(info: info, driver: opened.driver)
        #expect(readers.map(\.info.id) == ["usb:test/0", "usb:test/1"])
        let command = try CommandAPDU(hex: "00CA000000")
        let finished = Finished()
        async let slow: UInt8? = readers[0].withSession { session in
            let data = try await session.send(command).data
            await finished.note(0)
            return data.first
        }
        // Let slot 0's APDU reach its card first.
        let deadline = ContinuousClock.now + .seconds(60)
        while await opened.virtual.apdusProcessed < 1, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(5))
        }
        let fast = try await readers[1].withSession { session in
            let data = try await session.send(command).data
            await finished.note(1)
            return data.first
        }
        #expect(fast == 0xB1)
        #expect(await finished.slots == [1], "slot 0's card answered before the clock reached its 1.5 s")
        await clock.advance(by: .milliseconds(1500))
        #expect(try await slow == 0xA0)
        #expect(await finished.slots == [1, 0])
        #expect(await opened.virtual.slotBusyRefusals == 0)
        await opened.close()
    }
}
