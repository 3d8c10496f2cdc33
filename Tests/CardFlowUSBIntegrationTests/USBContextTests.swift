import Testing

@testable import CardFlowCCIDProtocol

/// These run against whatever USB bus the host has (under umockdev: the emulated one); they never
/// assert on how many readers there are. They live in the serialized USB suite because creating
/// and tearing down libusb contexts while other tests wait for hotplug events disturbs them.
extension USBIntegration {
    @Suite("libusb context")
    struct USBContextTests {
        @Test func opensListsAndCloses() throws {
            let context = try LibUSBContext()
            #expect(!context.isClosed)
            let readers = try context.readers()
            for reader in readers { #expect(!reader.name.isEmpty) }
            context.close()
            #expect(context.isClosed)
            context.close() // idempotent
            #expect(throws: USBTransportError.io("the libusb context is closed")) { try context.readers() }
        }

        @Test func manyContextsComeAndGo() throws {
            for _ in 0..<20 {
                let context = try LibUSBContext()
                _ = try context.readers()
                context.close()
            }
            // Dropped without close(): deinit stops the event thread and frees libusb.
            for _ in 0..<5 { _ = try LibUSBContext() }
        }

        @Test func unknownReaderCannotBeOpened() throws {
            let context = try LibUSBContext()
            defer { context.close() }
            // Address 0 is never given to a configured device.
            let ghost = ghostReader(
                bus: 0, address: 0, vendorID: 0x072F, productID: 0x2200,
                serial: nil, interface: 0)
            #expect(throws: USBTransportError.noDevice) { try context.openTransport(for: ghost) }
            #expect {
                try context.openDriver(.busAddress(bus: 0, address: 0))
            } throws: { error in
                guard case .noMatchingReader(.busAddress(0, 0), _) = error as? USBReaderSelectorError else {
                    return false
                }
                return true
            }
        }

        @Test func openingOnAClosedContextFails() throws {
            let context = try LibUSBContext()
            context.close()
            let ghost = ghostReader(bus: 0, address: 0, vendorID: 1, productID: 2, serial: nil, interface: 0)
            #expect(throws: USBTransportError.io("the libusb context is closed")) {
                try context.openTransport(for: ghost)
            }
        }

        @Test(arguments: [false, true])
        func readerEventsEndWhenTheContextCloses(forcePolling: Bool) async throws {
            let context = try LibUSBContext()
            let events = context.readerEvents(pollingInterval: .milliseconds(20), forcePolling: forcePolling)
            let consumer = Task {
                var arrivals = 0
                for await event in events {
                    if case .arrived = event { arrivals += 1 }
                }
                return arrivals
            }
            try await Task.sleep(for: .milliseconds(100))
            context.close()
            // Returns only because the stream finished.
            let arrivals = await consumer.value
            #expect(arrivals >= 0)
        }

        /// The context's reader-event task enumerates the bus on a concurrency thread; closing the
        /// context from another task used to free libusb's context under a running enumeration (a
        /// crash in libusb seen once in CI). close() now waits for the running calls. Each round
        /// closes at a different point of the polling loop; a regression crashes the test process.
        @Test func closingWhileTheEventTaskEnumeratesIsSafe() async throws {
            for round in 0..<60 {
                let context = try LibUSBContext()
                let events = context.readerEvents(pollingInterval: .zero, forcePolling: true)
                let consumer = Task { for await _ in events {} }
                // 0…2.95 ms: somewhere inside or between enumerations.
                try await Task.sleep(for: .microseconds(50 * (round % 60)))
                context.close()
                await consumer.value
                #expect(throws: USBTransportError.io("the libusb context is closed")) { try context.readers() }
            }
        }

        @Test func readerEventsStopWhenTheConsumerStops() async throws {
            let context = try LibUSBContext()
            defer { context.close() }
            let consumer = Task {
                for await _ in context.readerEvents() {}
            }
            try await Task.sleep(for: .milliseconds(50))
            consumer.cancel()
            await consumer.value
            // A second stream still works after the first ended.
            let second = Task {
                for await _ in context.readerEvents(pollingInterval: .milliseconds(10), forcePolling: true) {}
            }
            try await Task.sleep(for: .milliseconds(50))
            second.cancel()
            await second.value
        }

        @Test func readerEventsOnAClosedContextEndAtOnce() async throws {
            let context = try LibUSBContext()
            context.close()
            var count = 0
            for await _ in context.readerEvents() { count += 1 }
            #expect(count == 0)
        }
    }
}

/// A reader description no device matches.
private func ghostReader(
    bus: UInt8, address: UInt8, vendorID: UInt16, productID: UInt16, serial: String?,
    interface: UInt8
) -> USBReaderDescription {
    USBReaderDescription(
        bus: bus, address: address, vendorID: vendorID, productID: productID, bcdDevice: 0x0100,
        serialNumber: serial, interfaceNumber: interface,
        descriptor: CCIDClassDescriptor(features: CCIDFeatures(rawValue: 0x0002_0040), maxMessageLength: 271),
        endpoints: USBCCIDEndpoints(bulkOut: 0x02, bulkOutMaxPacketSize: 64, bulkIn: 0x82, bulkInMaxPacketSize: 64))
}
