import CCardFlowLibUSB
import Logging

extension LibUSBContext {
    /// Reader arrivals and departures.
    ///
    /// The stream starts with an ``USBReaderEvent/arrived(_:)`` for every reader already
    /// connected, then follows plug and unplug. It uses libusb hotplug notifications when libusb
    /// supports them, else (or with `forcePolling`) it compares the device list every
    /// `pollingInterval`. Only devices that were reported as readers are reported as left.
    ///
    /// The stream ends when the consumer's task is cancelled, when it stops iterating, or when
    /// the context is closed; until then it keeps the context alive.
    ///
    /// ```swift
    /// for await event in context.readerEvents() {
    ///     switch event {
    ///     case .arrived(let reader): print("+", reader.name)
    ///     case .left(let bus, let address): print("-", bus, address)
    ///     }
    /// }
    /// ```
    public func readerEvents(pollingInterval: Duration = .seconds(1), forcePolling: Bool = false) -> AsyncStream<
        USBReaderEvent
    > {
        let (stream, continuation) = AsyncStream.makeStream(of: USBReaderEvent.self)
        guard let streamID = streamOpened(finish: { continuation.finish() }) else {
            continuation.finish()
            return stream
        }
        let task: Task<Void, Never>
        var dispatcher: LibUSBHotplugDispatcher?
        if !forcePolling && Self.hasHotplug {
            do {
                dispatcher = try hotplugDispatcher()
            } catch {
                logger.warning("hotplug unavailable; polling the device list instead", metadata: ["error": "\(error)"])
            }
        }
        if let dispatcher {
            let (notifications, notificationContinuation) = AsyncStream.makeStream(
                of: LibUSBHotplugDispatcher.Event.self)
            // Subscribe before the snapshot so that nothing plugged in meanwhile is missed;
            // duplicates are filtered by `tracker`.
            let subscription = dispatcher.subscribe(notificationContinuation)
            task = Task { [self] in
                var tracker = ReaderTracker()
                do {
                    tracker.snapshot(try readers(), into: continuation)
                } catch {
                    logger.warning("listing the readers present failed", metadata: ["error": "\(error)"])
                }
                for await notification in notifications {
                    switch notification {
                    case .arrived(let bus, let address):
                        let device = USBDeviceAddress(bus: bus, address: address)
                        guard !tracker.isKnown(device) else { continue }
                        // Describing opens the device: done here, never in the libusb callback.
                        tracker.arrived(readers(bus: bus, address: address), at: device, into: continuation)
                    case .left(let bus, let address):
                        tracker.left(USBDeviceAddress(bus: bus, address: address), into: continuation)
                    }
                }
                continuation.finish()
            }
            continuation.onTermination = { [self] _ in
                task.cancel()
                dispatcher.unsubscribe(subscription)
                streamClosed(streamID)
            }
        } else {
            task = Task { [self] in
                var tracker = ReaderTracker()
                var seen: Set<USBDeviceAddress> = []
                while !Task.isCancelled {
                    if let present = try? deviceAddresses() {
                        for device in present.subtracting(seen).sorted(by: {
                            ($0.bus, $0.address) < ($1.bus, $1.address)
                        }) {
                            tracker.arrived(
                                readers(bus: device.bus, address: device.address), at: device, into: continuation)
                        }
                        for device in seen.subtracting(present) {
                            tracker.left(device, into: continuation)
                        }
                        seen = present
                    }
                    try? await Task.sleep(for: pollingInterval)
                }
                continuation.finish()
            }
            continuation.onTermination = { [self] _ in
                task.cancel()
                streamClosed(streamID)
            }
        }
        return stream
    }
}

/// Which devices a reader-event stream has announced, so that each arrival and departure is
/// reported once.
private struct ReaderTracker {
    private var readerDevices: Set<USBDeviceAddress> = []

    func isKnown(_ device: USBDeviceAddress) -> Bool { readerDevices.contains(device) }

    mutating func snapshot(
        _ readers: [USBReaderDescription], into continuation: AsyncStream<USBReaderEvent>.Continuation
    ) {
        for reader in readers {
            readerDevices.insert(USBDeviceAddress(bus: reader.bus, address: reader.address))
            continuation.yield(.arrived(reader))
        }
    }

    mutating func arrived(
        _ readers: [USBReaderDescription], at device: USBDeviceAddress,
        into continuation: AsyncStream<USBReaderEvent>.Continuation
    ) {
        guard !readers.isEmpty, readerDevices.insert(device).inserted else { return }
        for reader in readers { continuation.yield(.arrived(reader)) }
    }

    mutating func left(_ device: USBDeviceAddress, into continuation: AsyncStream<USBReaderEvent>.Continuation) {
        guard readerDevices.remove(device) != nil else { return }
        continuation.yield(.left(bus: device.bus, address: device.address))
    }
}
