import CCardFlowLibUSB
import Logging
import Synchronization

/// The context's single libusb hotplug callback, fanned out to every reader-event stream.
///
/// The callback runs inside `libusb_handle_events` (normally on the event thread). It only
/// reads the bus number and address, which need no I/O, and queues them; describing an arrived
/// device (opening it to read its strings) happens later in the stream's task, outside the
/// callback, because blocking libusb calls inside it could deadlock the event loop.
///
/// The callback stays registered until `libusb_exit`, and its user data is this object,
/// unretained: the owning ``LibUSBContext`` keeps it alive until after `libusb_exit`. It is never
/// deregistered earlier because libusb may still be running a callback (without its lock) after
/// `libusb_hotplug_deregister_callback` returns, so its user data could not be freed safely.
final class LibUSBHotplugDispatcher: Sendable {
    /// What the callback reports.
    enum Event: Sendable, Hashable {
        case arrived(bus: UInt8, address: UInt8)
        case left(bus: UInt8, address: UInt8)
    }

    private let subscribers = Mutex<[UInt64: AsyncStream<Event>.Continuation]>([:])
    private let nextID = Atomic<UInt64>(0)
    private let logger: Logger

    /// Creates the dispatcher and registers its callback for arrivals and departures of every
    /// device, without initial enumeration (each stream takes its own snapshot).
    init(context: OpaquePointer, logger: Logger) throws(USBTransportError) {
        self.logger = logger
        let events = Int32(LIBUSB_HOTPLUG_EVENT_DEVICE_ARRIVED.rawValue | LIBUSB_HOTPLUG_EVENT_DEVICE_LEFT.rawValue)
        var handle: libusb_hotplug_callback_handle = 0
        let result = libusb_hotplug_register_callback(
            context, events, 0, LIBUSB_HOTPLUG_MATCH_ANY,
            LIBUSB_HOTPLUG_MATCH_ANY, LIBUSB_HOTPLUG_MATCH_ANY,
            libUSBHotplugEvent, Unmanaged.passUnretained(self).toOpaque(),
            &handle)
        guard result == 0 else {
            throw .io("libusb_hotplug_register_callback failed: \(LibUSBErrorMapping.name(result))")
        }
    }

    /// Adds a subscriber; the returned id removes it again.
    func subscribe(_ continuation: AsyncStream<Event>.Continuation) -> UInt64 {
        let id = nextID.add(1, ordering: .relaxed).newValue
        subscribers.withLock { $0[id] = continuation }
        return id
    }

    /// Removes a subscriber and ends its stream.
    func unsubscribe(_ id: UInt64) {
        subscribers.withLock { $0.removeValue(forKey: id) }?.finish()
    }

    fileprivate func deliver(_ event: Event) {
        logger.trace("libusb hotplug event", metadata: ["event": "\(event)"])
        for continuation in subscribers.withLock({ Array($0.values) }) {
            continuation.yield(event)
        }
    }
}

/// The hotplug callback: no I/O here, only the device's bus number and address.
private func libUSBHotplugEvent(
    _ context: OpaquePointer?, _ device: OpaquePointer?, _ event: libusb_hotplug_event,
    _ userData: UnsafeMutableRawPointer?
) -> Int32 {
    guard let device, let userData else { return 0 }
    let dispatcher = Unmanaged<LibUSBHotplugDispatcher>.fromOpaque(userData).takeUnretainedValue()
    let bus = libusb_get_bus_number(device)
    let address = libusb_get_device_address(device)
    if event == LIBUSB_HOTPLUG_EVENT_DEVICE_ARRIVED {
        dispatcher.deliver(.arrived(bus: bus, address: address))
    } else if event == LIBUSB_HOTPLUG_EVENT_DEVICE_LEFT {
        dispatcher.deliver(.left(bus: bus, address: address))
    }
    return 0 // stay registered
}
