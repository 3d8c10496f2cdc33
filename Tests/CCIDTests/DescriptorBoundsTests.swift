import CardFlow
import CardSimulator
import Synchronization
import Testing
@testable import CCID

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
        CCIDClassDescriptor(features: [.automaticParameterNegotiation, .extendedAPDULevel], maxMessageLength: maxMessageLength)
    }

    @Test("absurd and large-but-legal dwMaxCCIDMessageLength: clamped, warned, buffers stay small",
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
