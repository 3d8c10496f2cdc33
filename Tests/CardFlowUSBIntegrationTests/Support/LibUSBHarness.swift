import CCardFlowLibUSB
import CardFlowSimulatorUSB
import Foundation
import Testing

/// All emulator suites nest in this one: `.serialized` covers nested suites, and the testbed
/// (`UMOCKDEV_DIR`), CPU measurements and hotplug events are process-wide. Add further USB
/// suites as `extension USBIntegration { @Suite struct … }`.
@Suite(.serialized) enum USBIntegration {}

enum MockEnvironment {
    static let advice =
        "run under umockdev-wrapper: swift build --build-tests && umockdev-wrapper swift test --skip-build"

    /// The shared testbed when this process runs under umockdev's preload. Otherwise the test is
    /// skipped (cancelled) with advice, or fails when CI=true. Call first in every test.
    static func testbed(sourceLocation: SourceLocation = #_sourceLocation) throws -> USBTestbed? {
        if USBTestbed.inMockEnvironment { return try USBTestbed.shared() }
        if ProcessInfo.processInfo.environment["CI"] == "true" {
            Issue.record("not under the umockdev preload; \(advice)", sourceLocation: sourceLocation)
            return nil
        }
        try Test.cancel("not under the umockdev preload; \(advice)", sourceLocation: sourceLocation)
    }
}

/// Runs blocking libusb work on its own thread, so it never holds up the Swift concurrency
/// threads the emulator's pump tasks run on.
func offPool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
        let thread = Thread {
            continuation.resume(with: Result { try body() })
        }
        thread.start()
    }
}

struct LibUSBError: Error, CustomStringConvertible {
    let call: String
    let code: Int32
    var description: String { "\(call): \(String(cString: libusb_error_name(code)))" }
}

@discardableResult
func check(_ code: Int32, _ call: String) throws -> Int32 {
    guard code >= 0 else { throw LibUSBError(call: call, code: code) }
    return code
}

func errorName(_ code: Int32) -> String { String(cString: libusb_error_name(code)) }

/// A libusb context for one test. Used from one thread at a time (the harness hands it between
/// the test and `offPool` threads, never concurrently), which the compiler cannot check.
final class LibUSB: @unchecked Sendable {
    let context: OpaquePointer

    init() throws {
        var context: OpaquePointer?
        try check(libusb_init(&context), "libusb_init")
        self.context = context!
    }

    deinit {
        libusb_exit(context)
    }

    struct DeviceSummary: Sendable {
        let bus: Int
        let address: Int
        let vendorID: UInt16
        let productID: UInt16
        let interfaceClass: UInt8
        let endpoints: [UInt8]
        let extra: [UInt8]
    }

    /// The devices libusb enumerates, with their first interface.
    func devices() throws -> [DeviceSummary] {
        var list: UnsafeMutablePointer<OpaquePointer?>?
        let count = try check(Int32(libusb_get_device_list(context, &list)), "libusb_get_device_list")
        defer { libusb_free_device_list(list, 1) }
        var result: [DeviceSummary] = []
        for index in 0..<Int(count) {
            guard let device = list?[index] else { continue }
            var descriptor = libusb_device_descriptor()
            try check(libusb_get_device_descriptor(device, &descriptor), "libusb_get_device_descriptor")
            var interfaceClass: UInt8 = 0
            var endpoints: [UInt8] = []
            var extra: [UInt8] = []
            var config: UnsafeMutablePointer<libusb_config_descriptor>?
            if libusb_get_config_descriptor(device, 0, &config) == 0, let config {
                defer { libusb_free_config_descriptor(config) }
                if config.pointee.bNumInterfaces > 0, let interface = config.pointee.interface,
                    interface.pointee.num_altsetting > 0, let setting = interface.pointee.altsetting
                {
                    interfaceClass = setting.pointee.bInterfaceClass
                    for e in 0..<Int(setting.pointee.bNumEndpoints) {
                        endpoints.append(setting.pointee.endpoint[e].bEndpointAddress)
                    }
                    if let bytes = setting.pointee.extra, setting.pointee.extra_length > 0 {
                        extra = Array(UnsafeBufferPointer(start: bytes, count: Int(setting.pointee.extra_length)))
                    }
                }
            }
            result.append(
                DeviceSummary(
                    bus: Int(libusb_get_bus_number(device)), address: Int(libusb_get_device_address(device)),
                    vendorID: descriptor.idVendor, productID: descriptor.idProduct,
                    interfaceClass: interfaceClass, endpoints: endpoints, extra: extra))
        }
        return result
    }

    /// Opens the device at bus:address.
    func open(_ emulated: EmulatedUSBReader) throws -> DeviceHandle {
        var list: UnsafeMutablePointer<OpaquePointer?>?
        let count = try check(Int32(libusb_get_device_list(context, &list)), "libusb_get_device_list")
        defer { libusb_free_device_list(list, 1) }
        for index in 0..<Int(count) {
            guard let device = list?[index] else { continue }
            if Int(libusb_get_bus_number(device)) == emulated.busNumber,
                Int(libusb_get_device_address(device)) == emulated.deviceAddress
            {
                var handle: OpaquePointer?
                try check(libusb_open(device, &handle), "libusb_open")
                return DeviceHandle(raw: handle!, usb: self)
            }
        }
        throw LibUSBError(
            call: "find \(emulated.busNumber):\(emulated.deviceAddress)", code: LIBUSB_ERROR_NOT_FOUND.rawValue)
    }

    /// Handles events until `done` holds or `timeout` passes; returns whether `done` held.
    @discardableResult
    func handleEvents(timeout: Duration, until done: () -> Bool) -> Bool {
        let deadline = ContinuousClock.now + timeout
        while !done() {
            if ContinuousClock.now >= deadline { return false }
            var slice = timeval(tv_sec: 0, tv_usec: 20_000)
            libusb_handle_events_timeout_completed(context, &slice, nil)
        }
        return true
    }
}

/// An open device. Used from one thread at a time, as ``LibUSB``; keeps its context alive.
final class DeviceHandle: @unchecked Sendable {
    let raw: OpaquePointer
    let usb: LibUSB
    private var closed = false

    init(raw: OpaquePointer, usb: LibUSB) {
        self.raw = raw
        self.usb = usb
    }

    deinit {
        close()
    }

    func close() {
        if !closed { libusb_close(raw) }
        closed = true
    }

    func claim(autoDetach: Bool = true) -> Int32 {
        libusb_set_auto_detach_kernel_driver(raw, autoDetach ? 1 : 0)
        return libusb_claim_interface(raw, 0)
    }

    /// Sync bulk OUT; returns the libusb result.
    func bulkOut(_ bytes: [UInt8], timeout: UInt32 = 2000) -> Int32 {
        var data = bytes
        var transferred: Int32 = 0
        return libusb_bulk_transfer(raw, 0x01, &data, Int32(data.count), &transferred, timeout)
    }

    /// Sync bulk IN; returns the libusb result and the bytes.
    func bulkIn(maxLength: Int = 1024, timeout: UInt32 = 2000) -> (Int32, [UInt8]) {
        var data = [UInt8](repeating: 0, count: maxLength)
        var transferred: Int32 = 0
        let rc = libusb_bulk_transfer(raw, 0x82, &data, Int32(maxLength), &transferred, timeout)
        return (rc, Array(data.prefix(Int(transferred))))
    }

    func stringDescriptor(_ index: UInt8) -> String? {
        var buffer = [UInt8](repeating: 0, count: 256)
        let n = libusb_get_string_descriptor_ascii(raw, index, &buffer, Int32(buffer.count))
        guard n >= 0 else { return nil }
        return String(decoding: buffer.prefix(Int(n)), as: UTF8.self)
    }
}

/// An asynchronous transfer and its completion, for tests that keep one pending. Keeps its
/// device handle (and so the context) alive.
final class AsyncTransfer: @unchecked Sendable {
    let handle: DeviceHandle
    let transfer: UnsafeMutablePointer<libusb_transfer>
    let buffer: UnsafeMutablePointer<UInt8>
    let length: Int
    private let completed: UnsafeMutablePointer<Int32>

    init(handle: DeviceHandle, endpoint: UInt8, length: Int, interrupt: Bool = false, timeout: UInt32 = 0) {
        self.handle = handle
        transfer = libusb_alloc_transfer(0)
        buffer = .allocate(capacity: length)
        buffer.initialize(repeating: 0, count: length)
        self.length = length
        completed = .allocate(capacity: 1)
        completed.initialize(to: 0)
        let callback: libusb_transfer_cb_fn = { transfer in
            transfer?.pointee.user_data.assumingMemoryBound(to: Int32.self).pointee = 1
        }
        if interrupt {
            libusb_fill_interrupt_transfer(
                transfer, handle.raw, endpoint, buffer, Int32(length), callback,
                UnsafeMutableRawPointer(completed), timeout)
        } else {
            libusb_fill_bulk_transfer(
                transfer, handle.raw, endpoint, buffer, Int32(length), callback,
                UnsafeMutableRawPointer(completed), timeout)
        }
    }

    deinit {
        libusb_free_transfer(transfer)
        buffer.deallocate()
        completed.deallocate()
    }

    func submit() -> Int32 {
        completed.pointee = 0
        return libusb_submit_transfer(transfer)
    }

    func cancel() -> Int32 { libusb_cancel_transfer(transfer) }

    var isCompleted: Bool { completed.pointee != 0 }
    var status: libusb_transfer_status { transfer.pointee.status }
    var data: [UInt8] { Array(UnsafeBufferPointer(start: buffer, count: Int(transfer.pointee.actual_length))) }
}

func statusName(_ status: libusb_transfer_status) -> String {
    switch status {
    case LIBUSB_TRANSFER_COMPLETED: "COMPLETED"
    case LIBUSB_TRANSFER_ERROR: "ERROR"
    case LIBUSB_TRANSFER_TIMED_OUT: "TIMED_OUT"
    case LIBUSB_TRANSFER_CANCELLED: "CANCELLED"
    case LIBUSB_TRANSFER_STALL: "STALL"
    case LIBUSB_TRANSFER_NO_DEVICE: "NO_DEVICE"
    case LIBUSB_TRANSFER_OVERFLOW: "OVERFLOW"
    default: "status \(status.rawValue)"
    }
}
