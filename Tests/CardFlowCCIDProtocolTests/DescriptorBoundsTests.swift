import CardFlow
import CardFlowSimulator
import Synchronization
import Testing

@testable import CardFlowCCIDProtocol

/// dwMaxCCIDMessageLength and the other descriptor fields come from the device: a reader that
/// declares 0xFFFFFFFF must cost no more memory than one that declares what it needs, and
/// must not trap anywhere on the way to libusb.
@Suite("Descriptor bounds")
struct DescriptorBoundsTests {
    /// The in-memory transport, noting the largest bulk-IN buffer the driver asked for.
    final class MeasuringTransport: USBTransport {
        let inner: InMemoryUSBTransport
        private let largest = Atomic<Int>(0)
        var largestRead: Int { largest.load(ordering: .relaxed) }

        init(reader: VirtualCCIDReader) { inner = InMemoryUSBTransport(reader: reader) }

        func bulkOut(_ data: [UInt8], timeout: Duration) async throws(USBTransportError) {
            try await inner.bulkOut(data, timeout: timeout)
        }

        func bulkIn(maxLength: Int, timeout: Duration) async throws(USBTransportError) -> [UInt8] {
            largest.max(maxLength, ordering: .relaxed)
            return try await inner.bulkIn(maxLength: maxLength, timeout: timeout)
        }

        func interruptIn(maxLength: Int, timeout: Duration) async throws(USBTransportError) -> [UInt8] {
            try await inner.interruptIn(maxLength: maxLength, timeout: timeout)
        }

        func control(_ request: USBControlRequest, timeout: Duration) async throws(USBTransportError) -> [UInt8] {
            try await inner.control(request, timeout: timeout)
        }
    }

    static func extendedReader(maxMessageLength: UInt32) -> CCIDClassDescriptor {
        CCIDClassDescriptor(
            features: [.automaticParameterNegotiation, .extendedAPDULevel], maxMessageLength: maxMessageLength)
    }

    @Test(
        "absurd and large-but-legal dwMaxCCIDMessageLength: clamped, warned, buffers stay small",
        arguments: [UInt32.max, 0x8000_0000, 0x7FFF_FFFF, 0x1000_0000, 0x0010_0000, 65_555])
    func absurdMessageLengthIsClamped(length: UInt32) async throws {
        let descriptor = Self.extendedReader(maxMessageLength: length)
        #expect(descriptor.isMessageLengthClamped)
        #expect(descriptor.usableMaxMessageLength == CCIDClassDescriptor.maximumUsableMessageLength)
        #expect(descriptor.maxPayloadPerMessage == 65_544)

        let reader = VirtualCCIDReader(configuration: VirtualReaderConfiguration(descriptor: descriptor))
        await reader.insert(EchoCard())
        let transport = MeasuringTransport(reader: reader)
        let log = CCIDLogCapture()
        let driver = CCIDDriver(transport: transport, descriptor: descriptor, logger: log.logger())
        #expect(!log.warnings(containing: "dwMaxCCIDMessageLength").isEmpty)

        _ = try await driver.powerOn()
        // The longest extended APDU travels whole, and its answer comes back whole.
        let command = extendedEchoCommand(count: 65_535)
        let response = try await driver.transmit(command)
        #expect(response.count == 65_537)
        #expect(Array(response.prefix(65_535)) == Array(command[7..<(7 + 65_535)]))
        #expect(transport.largestRead <= 65_600, "read buffer of \(transport.largestRead) bytes")
        try await driver.powerOff()
    }

    @Test("sensible dwMaxCCIDMessageLength values are used as they are", arguments: [UInt32(11), 271, 1_034, 65_554])
    func sensibleMessageLengthIsKept(length: UInt32) {
        let descriptor = Self.extendedReader(maxMessageLength: length)
        #expect(!descriptor.isMessageLengthClamped)
        #expect(descriptor.usableMaxMessageLength == Int(length))
        #expect(descriptor.maxPayloadPerMessage == Int(length) - 10)
        #expect(CCIDDriver.readBufferLength(for: descriptor) >= max(Int(length), 271))
        #expect(CCIDDriver.readBufferLength(for: descriptor) % 64 == 0)
    }

    @Test("every descriptor field at its extreme parses, and the driver's sizes stay bounded")
    func extremeDescriptorParses() throws {
        var bytes = [UInt8](repeating: 0xFF, count: CCIDClassDescriptor.length)
        bytes[0] = UInt8(CCIDClassDescriptor.length)
        bytes[1] = CCIDClassDescriptor.descriptorType
        let descriptor = try CCIDClassDescriptor(bytes: bytes)
        #expect(descriptor.maxMessageLength == .max)
        #expect(descriptor.slotCount == 256)
        #expect(descriptor.numDataRatesSupported == 255)
        #expect(descriptor.maxIFSD == .max)
        #expect(CCIDDriver.readBufferLength(for: descriptor) <= 65_600)
        // The class requests that list clocks and data rates ask for at most 255 values.
        let request = CCIDClassRequest.getDataRates(count: Int(descriptor.numDataRatesSupported))
            .controlRequest(interface: 0)
        #expect(request.length == 255 * 4)
    }

    @Test("a libusb transfer longer than its limit is refused, not allocated and trapped on")
    func oversizedTransferIsRefused() {
        // The handle is never used: the size check comes before anything touches libusb.
        let handle = OpaquePointer(bitPattern: 0x1000)!
        for length in [Int(UInt32.max) + 1, Int(Int32.max) + 1, LibUSBTransfer.maximumLength + 1, -1] {
            #expect(throws: USBTransportError.self) {
                _ = try LibUSBTransfer.bulk(handle: handle, endpoint: 0x81, length: length, timeoutMilliseconds: 1)
            }
        }
    }
}

extension DescriptorBoundsTests {
    /// A descriptor with every byte at 0xFF (but bLength and type): 256 slots, every voltage,
    /// protocol and feature bit, 255 clocks and data rates, 4 GiB messages.
    static func extremeDescriptor() throws -> CCIDClassDescriptor {
        var bytes = [UInt8](repeating: 0xFF, count: CCIDClassDescriptor.length)
        bytes[0] = UInt8(CCIDClassDescriptor.length)
        bytes[1] = CCIDClassDescriptor.descriptorType
        return try CCIDClassDescriptor(bytes: bytes)
    }

    @Test("a reader with every descriptor field at its extreme: slot 255 works and its card events decode")
    func extremeReaderWorks() async throws {
        let descriptor = try Self.extremeDescriptor()
        let reader = VirtualCCIDReader(configuration: VirtualReaderConfiguration(descriptor: descriptor))
        let driver = CCIDDriver(transport: InMemoryUSBTransport(reader: reader), descriptor: descriptor)
        await reader.insert(EchoCard(), slot: 255)
        // NotifySlotChange for 256 slots is 65 bytes: the driver must read it whole.
        let message = try await driver.readInterrupt(timeout: .seconds(1))
        guard case .slotChange(let changes)? = message else {
            Issue.record("expected a slot change, got \(String(describing: message))")
            return
        }
        #expect(changes.count == 256)
        #expect(changes[255] == .init(slot: 255, cardPresent: true, changed: true))
        #expect(changes.dropLast().allSatisfy { !$0.cardPresent })
        #expect(try await driver.slotStatus(slot: 255).icc == .presentInactive)
        _ = try await driver.powerOn(slot: 255)
        #expect(try await driver.transmit(extendedEchoCommand(count: 300), slot: 255).count == 302)
        try await driver.powerOff(slot: 255)
        await #expect(throws: CCIDDriverError.noCard) { try await driver.powerOn(slot: 0) }
        // Clock and data-rate lists of 255 values are answered and fit their requests.
        let rates = try await reader.control(CCIDClassRequest.getDataRates(count: 255).controlRequest(interface: 0))
        #expect(rates.count == 255 * 4)
    }
}
