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

/// A simulated reader on the ``USBTestbed``: the ``USBTestbed/attach(_:logger:)`` of a
/// ``/CardFlowSimulator/VirtualCCIDReader``.
public typealias EmulatedUSBReader = EmulatedUSBDevice<VirtualCCIDReader>

/// A device model (``EmulatedCCIDDeviceModel``) plugged into the ``USBTestbed`` as a USB device.
///
/// Four tasks move the traffic between the emulated device and the model: bulk-OUT transfers
/// to ``EmulatedCCIDDeviceModel/receiveBulkOut(_:)`` (in submission order), the model's bulk-IN and
/// interrupt-IN messages to the host's IN transfers (a `stall` halts the bulk-IN endpoint until
/// the host clears it), and class control requests to ``EmulatedCCIDDeviceModel/control(_:)``. When
/// the model reports `noDevice` (a ``/CardFlowSimulator/VirtualCCIDReader/unplug()`` or an injected
/// ``/CardFlowSimulator/ReaderFault/unplug``), the device is unplugged as well.
public final class EmulatedUSBDevice<Model: EmulatedCCIDDeviceModel>: Sendable {
    /// The model behind the device.
    public let model: Model
    /// The bed the device lives on (kept alive by it).
    public let testbed: USBTestbed
    /// The USB bus number (`libusb_get_bus_number`).
    public let busNumber: Int
    /// The device address on the bus (`libusb_get_device_address`); never reused.
    public let deviceAddress: Int
    /// The device's sysfs path, e.g. `/sys/devices/pci0000:00/0000:00:14.0/usb1/1-1`.
    public let sysfsPath: String
    /// The device node clients open, e.g. `/dev/bus/usb/001/002`.
    public let deviceNode: String

    private let handle: ReaderPointer
    private let bridge: BridgeContext
    private let pumps: Mutex<[Task<Void, Never>]>
    private let logger: Logger

    init(model: Model, testbed: USBTestbed, handle: ReaderPointer, bridge: BridgeContext, logger: Logger) {
        self.model = model
        self.testbed = testbed
        self.handle = handle
        self.bridge = bridge
        self.logger = logger
        busNumber = Int(ccid_emu_reader_bus_number(handle.raw))
        deviceAddress = Int(ccid_emu_reader_device_address(handle.raw))
        sysfsPath = String(cString: ccid_emu_reader_sysfs_path(handle.raw))
        deviceNode = String(cString: ccid_emu_reader_device_node(handle.raw))
        pumps = Mutex(Self.startPumps(model: model, handle: handle, bridge: bridge, logger: logger))
        logger.debug(
            "emulated USB device plugged in",
            metadata: ["node": "\(deviceNode)", "name": "\(model.usbIdentity.product)"])
    }

    deinit {
        close()
    }

    /// True once the device was unplugged (by ``unplug()``, ``close()`` or the reader).
    public var isUnplugged: Bool { ccid_emu_reader_is_unplugged(handle.raw) != 0 }

    /// Pulls the cable: the model is unplugged (its transfers fail with `noDevice`), the host's
    /// pending transfers complete with `LIBUSB_TRANSFER_NO_DEVICE`, later calls fail with
    /// `LIBUSB_ERROR_NO_DEVICE`, and the hotplug "remove" event goes out. Idempotent.
    public func unplug() async {
        await model.unplug()
        handle.unplug()
    }

    /// Unplugs the device (if still present) and stops moving traffic. Idempotent; also done
    /// when the object is released.
    public func close() {
        let tasks = pumps.withLock { tasks in
            defer { tasks = [] }
            return tasks
        }
        tasks.forEach { $0.cancel() }
        ccid_emu_reader_close(handle.raw) // after this, no C callback uses the bridge
        bridge.finish()
    }

    /// Counters of the emulated device, for tests and measurements.
    public var statistics: EmulatedUSBStatistics {
        var stats = ccid_emu_reader_stats()
        ccid_emu_reader_get_stats(handle.raw, &stats)
        return EmulatedUSBStatistics(stats)
    }

    // MARK: - Pumps

    private static func startPumps(
        model: Model, handle: ReaderPointer, bridge: BridgeContext,
        logger: Logger
    ) -> [Task<Void, Never>] {
        // Large enough for any message; the C side fits it to the host's buffers.
        let anyLength = 1 << 20
        // Wait "forever" in slices, so no pump depends on one very long timer.
        let slice = Duration.seconds(3600)
        var tasks: [Task<Void, Never>] = []

        tasks.append(
            Task {
                for await bytes in bridge.bulkOutStream {
                    // A zero-length packet ends a transfer; it carries no CCID message.
                    if bytes.isEmpty { continue }
                    do throws(USBTransportError) {
                        try await model.receiveBulkOut(bytes)
                    } catch .noDevice {
                        handle.unplug()
                        return
                    } catch {
                        logger.debug("bulk-OUT not taken by the device model", metadata: ["error": "\(error)"])
                    }
                }
            })

        tasks.append(
            Task {
                while !Task.isCancelled {
                    do throws(USBTransportError) {
                        let message = try await model.nextBulkIn(maxLength: anyLength, timeout: slice)
                        if handle.pushBulkIn(message) != 0 { return }
                    } catch {
                        switch error {
                        case .timeout: continue
                        case .stall: if handle.stallBulkIn() != 0 { return }
                        case .noDevice: handle.unplug(); return
                        case .cancelled: return
                        default: logger.debug("bulk-IN pump", metadata: ["error": "\(error)"])
                        }
                    }
                }
            })

        if model.usbIdentity.hasInterruptEndpoint {
            tasks.append(
                Task {
                    while !Task.isCancelled {
                        do throws(USBTransportError) {
                            let message = try await model.nextInterrupt(maxLength: anyLength, timeout: slice)
                            if handle.pushInterrupt(message) != 0 { return }
                        } catch {
                            switch error {
                            case .timeout: continue
                            case .noDevice: handle.unplug(); return
                            case .cancelled, .noInterruptEndpoint: return
                            default: logger.debug("interrupt-IN pump", metadata: ["error": "\(error)"])
                            }
                        }
                    }
                })
        }

        tasks.append(
            Task {
                for await pending in bridge.controlStream {
                    do throws(USBTransportError) {
                        let answer = try await model.control(pending.request)
                        handle.completeControl(pending.token, answer: pending.request.isDeviceToHost ? answer : [])
                    } catch .noDevice {
                        handle.completeControl(pending.token, answer: nil)
                        handle.unplug()
                        return
                    } catch {
                        handle.completeControl(pending.token, answer: nil)
                    }
                }
            })
        return tasks
    }
}

/// Counters of an emulated USB device (see ``EmulatedUSBDevice/statistics``).
public struct EmulatedUSBStatistics: Sendable, Hashable {
    /// usbdevfs requests received.
    public var ioctls: UInt64
    /// URBs (transfers) accepted.
    public var urbsSubmitted: UInt64
    /// Completed URBs handed back to clients.
    public var urbsReaped: UInt64
    /// Non-blocking reaps answered "nothing there" (EAGAIN): the polling cost of idle clients.
    public var emptyReaps: UInt64
    /// Completed transfers per endpoint kind (control: on the default pipe).
    public var bulkOutTransfers: UInt64
    public var bulkInTransfers: UInt64
    public var interruptTransfers: UInt64
    public var controlTransfers: UInt64
    /// File descriptors opened on the device node, ever.
    public var clientsConnected: UInt64
    /// Requests the emulator does not know (answered ENOTTY).
    public var unknownIoctls: UInt64

    init(_ stats: ccid_emu_reader_stats) {
        ioctls = stats.ioctls
        urbsSubmitted = stats.urbs_submitted
        urbsReaped = stats.urbs_reaped
        emptyReaps = stats.empty_reaps
        bulkOutTransfers = stats.bulk_out_transfers
        bulkInTransfers = stats.bulk_in_transfers
        interruptTransfers = stats.interrupt_transfers
        controlTransfers = stats.control_transfers
        clientsConnected = stats.clients_connected
        unknownIoctls = stats.unknown_ioctls
    }
}

/// A class control request waiting for the reader's answer.
struct PendingControl: Sendable {
    let token: UInt64
    let request: USBControlRequest
}

/// What the C callbacks hand over, in order, to the pump tasks. The C side gets an unretained
/// pointer to it; ``EmulatedUSBReader`` keeps it alive until the callbacks are detached.
final class BridgeContext: Sendable {
    let bulkOutStream: AsyncStream<[UInt8]>
    let bulkOut: AsyncStream<[UInt8]>.Continuation
    let controlStream: AsyncStream<PendingControl>
    let controls: AsyncStream<PendingControl>.Continuation

    init() {
        (bulkOutStream, bulkOut) = AsyncStream.makeStream(of: [UInt8].self, bufferingPolicy: .unbounded)
        (controlStream, controls) = AsyncStream.makeStream(of: PendingControl.self, bufferingPolicy: .unbounded)
    }

    func finish() {
        bulkOut.finish()
        controls.finish()
    }
}

/// A C reader object: it lives as long as the bed, and its C entry points are thread-safe,
/// which the compiler cannot see through a raw pointer.
struct ReaderPointer: Sendable {
    nonisolated(unsafe) let raw: OpaquePointer

    func pushBulkIn(_ bytes: [UInt8]) -> Int32 {
        bytes.withUnsafeBufferPointer { ccid_emu_reader_push_bulk_in(raw, $0.baseAddress, $0.count) }
    }

    func pushInterrupt(_ bytes: [UInt8]) -> Int32 {
        bytes.withUnsafeBufferPointer { ccid_emu_reader_push_interrupt(raw, $0.baseAddress, $0.count) }
    }

    func stallBulkIn() -> Int32 {
        ccid_emu_reader_stall_bulk_in(raw)
    }

    /// `answer` nil stalls the request.
    func completeControl(_ token: UInt64, answer: [UInt8]?) {
        guard let answer else {
            _ = ccid_emu_reader_complete_control(raw, token, CCID_EMU_CONTROL_STALL, nil, 0)
            return
        }
        _ = answer.withUnsafeBufferPointer {
            ccid_emu_reader_complete_control(raw, token, Int32(clamping: $0.count), $0.baseAddress, $0.count)
        }
    }

    /// Blocks for a few milliseconds (uevents, sysfs); idempotent.
    func unplug() {
        ccid_emu_reader_unplug(raw)
    }
}

extension EmulatedUSBDevice where Model == VirtualCCIDReader {
    /// The simulated reader behind the device.
    public var reader: VirtualCCIDReader { model }
}
