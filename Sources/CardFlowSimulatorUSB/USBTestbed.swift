import CardFlowCCIDEmulator
import CardFlowCCIDProtocol
import CardFlowSimulator
import Logging
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The process's emulated USB bus: a umockdev sandbox in which ``/CardFlowSimulator/VirtualCCIDReader``s
/// (and other ``EmulatedCCIDDeviceModel``s) appear as USB CCID readers to libusb programs — this process, or children started with
/// ``childEnvironment(inheritedPreload:)``.
///
/// ```swift
/// guard USBTestbed.inMockEnvironment else { ... }   // run under umockdev-wrapper
/// let testbed = try USBTestbed.shared()
/// let reader = VirtualCCIDReader()
/// await reader.insert(ISO7816Card(seed: 1))
/// let device = try testbed.attach(reader)          // hotplug "add"; libusb sees bus:address
/// ...
/// await device.unplug()                             // hotplug "remove"; transfers fail NO_DEVICE
/// ```
///
/// umockdev keeps its sandbox in the process-wide `UMOCKDEV_DIR`, so there is one testbed per
/// process (``shared()``), kept for the life of the process (its directory is removed at exit).
/// Programs using the emulated readers must be started under `libumockdev-preload`
/// (`umockdev-wrapper`), this process included.
public final class USBTestbed: Sendable {
    /// The shared object name of umockdev's preload library.
    public static let preloadLibrary = "libumockdev-preload.so.0"

    /// True when this process runs under `libumockdev-preload` (`umockdev-wrapper`). Without
    /// it, libusb in this process cannot see emulated readers and hotplug events are lost.
    public static var inMockEnvironment: Bool { ccid_emu_in_mock_environment() != 0 }

    private static let instance = Mutex<USBTestbed?>(nil)

    /// The process's testbed, created on first use (this sets `UMOCKDEV_DIR`).
    ///
    /// - Throws: ``USBEmulationError/notInMockEnvironment`` when the process is not preloaded,
    ///   ``USBEmulationError/testbed(_:)`` when umockdev fails.
    public static func shared() throws(USBEmulationError) -> USBTestbed {
        try instance.withLock { (testbed: inout USBTestbed?) throws(USBEmulationError) -> USBTestbed in
            if let testbed { return testbed }
            guard inMockEnvironment else { throw .notInMockEnvironment }
            var message: UnsafeMutablePointer<CChar>?
            guard let bed = ccid_emu_bed_new(&message) else {
                throw .testbed(USBEmulationError.take(message) ?? "umockdev testbed could not be created")
            }
            let created = USBTestbed(bed: BedPointer(raw: bed))
            testbed = created
            return created
        }
    }

    let bed: BedPointer

    private init(bed: BedPointer) {
        self.bed = bed
    }

    /// The sandbox directory (the value of `UMOCKDEV_DIR`).
    public var directory: String { String(cString: ccid_emu_bed_dir(bed.raw)) }

    /// Environment variables a child process needs to see the emulated readers:
    /// `UMOCKDEV_DIR`, and `LD_PRELOAD` with umockdev's preload library in front of
    /// `inheritedPreload` (the parent's `LD_PRELOAD`).
    public func childEnvironment(inheritedPreload: String? = nil) -> [String: String] {
        var libraries = (inheritedPreload ?? "").split(separator: ":").map(String.init).filter { !$0.isEmpty }
        libraries.removeAll { $0 == Self.preloadLibrary }
        libraries.insert(Self.preloadLibrary, at: 0)
        return ["UMOCKDEV_DIR": directory, "LD_PRELOAD": libraries.joined(separator: ":")]
    }

    /// Plugs `model` in as a USB device with its ``EmulatedCCIDDeviceModel/usbIdentity`` (vendor
    /// and product ID, bcdDevice, manufacturer, product as product and interface string, serial
    /// number, CCID class descriptor, interrupt endpoint) and starts moving its traffic:
    /// bulk-OUT transfers go to ``EmulatedCCIDDeviceModel/receiveBulkOut(_:)`` in order, its
    /// bulk-IN and interrupt-IN messages complete the host's IN transfers, class control requests
    /// go to ``EmulatedCCIDDeviceModel/control(_:)``. A ``/CardFlowSimulator/VirtualCCIDReader``
    /// gives an ``EmulatedUSBReader``, a ``ReplayedCCIDDevice`` a recorded reader.
    ///
    /// The device gets a fresh bus address (never reused) and emits the hotplug "add" event.
    /// Keep the returned object: releasing it unplugs the device.
    public func attach<Model: EmulatedCCIDDeviceModel>(
        _ model: Model,
        logger: Logger = Logger(label: "cardflow.usb-emulator")
    ) throws(USBEmulationError) -> EmulatedUSBDevice<Model> {
        let identity = model.usbIdentity
        let bridge = BridgeContext()
        let classDescriptor = identity.classDescriptor
        // Called on umockdev's worker thread: hand over and return at once.
        var callbacks = ccid_emu_callbacks(
            on_bulk_out: { context, data, length in
                guard let context else { return }
                let bridge = Unmanaged<BridgeContext>.fromOpaque(context).takeUnretainedValue()
                let bytes = (length > 0 && data != nil) ? Array(UnsafeBufferPointer(start: data, count: length)) : []
                bridge.bulkOut.yield(bytes)
            },
            on_control: { context, setup, outData, outLength, _, token in
                guard let context, let setup else { return CCID_EMU_CONTROL_STALL }
                let bridge = Unmanaged<BridgeContext>.fromOpaque(context).takeUnretainedValue()
                let packet = setup.pointee
                let data =
                    (outLength > 0 && outData != nil)
                    ? Array(UnsafeBufferPointer(start: outData, count: outLength)) : []
                let request = USBControlRequest(
                    requestType: packet.request_type, request: packet.request,
                    value: packet.value, index: packet.index, data: data, length: packet.length)
                bridge.controls.yield(PendingControl(token: token, request: request))
                return CCID_EMU_CONTROL_PENDING
            })

        let names: [String] = [identity.manufacturer, identity.product, identity.serialNumber ?? "", identity.product]
        let strings = names.map { strdup($0) }
        defer { strings.forEach { free($0) } }
        var message: UnsafeMutablePointer<CChar>?
        let created: OpaquePointer? = classDescriptor.withUnsafeBufferPointer { descriptor in
            var info = ccid_emu_reader_info(
                vendor_id: identity.vendorID, product_id: identity.productID,
                bcd_device: identity.bcdDevice,
                manufacturer: strings[0], product: strings[1], serial_number: strings[2], interface_name: strings[3],
                class_descriptor: descriptor.baseAddress, class_descriptor_length: descriptor.count,
                has_interrupt_endpoint: identity.hasInterruptEndpoint ? 1 : 0)
            return ccid_emu_bed_add_reader(
                bed.raw, &info, &callbacks, Unmanaged.passUnretained(bridge).toOpaque(), &message)
        }
        guard let created else {
            bridge.finish()
            throw .attach(USBEmulationError.take(message) ?? "the reader could not be added")
        }
        return EmulatedUSBDevice(
            model: model, testbed: self, handle: ReaderPointer(raw: created), bridge: bridge, logger: logger)
    }
}

/// Why the USB emulation could not do what was asked.
public enum USBEmulationError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The process does not run under umockdev's preload library.
    case notInMockEnvironment
    /// umockdev's testbed could not be set up.
    case testbed(String)
    /// A reader could not be plugged in.
    case attach(String)

    public var description: String {
        switch self {
        case .notInMockEnvironment:
            "the process does not run under \(USBTestbed.preloadLibrary); start it with umockdev-wrapper "
                + "(or LD_PRELOAD=\(USBTestbed.preloadLibrary))"
        case .testbed(let detail): "umockdev testbed: \(detail)"
        case .attach(let detail): "cannot plug in the emulated reader: \(detail)"
        }
    }

    /// Takes a malloc()ed C error string.
    static func take(_ message: UnsafeMutablePointer<CChar>?) -> String? {
        guard let message else { return nil }
        defer { free(message) }
        return String(cString: message)
    }
}

/// The C bed: fixed for the process's life, and its C entry points are thread-safe, which the
/// compiler cannot see through a raw pointer.
struct BedPointer: Sendable {
    nonisolated(unsafe) let raw: OpaquePointer
}
