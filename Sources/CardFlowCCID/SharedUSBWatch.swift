import CardFlow
import CardFlowCCIDProtocol
import Logging

/// The one libusb context and hotplug registry that every watching `usb` selector of a
/// ``USBReaderSource`` shares. Each selector adds what it accepts and sees its readers through a
/// filtered view; a reader two selectors name is opened once (a second registry would find its
/// interface claimed and log a false "cannot open reader").
actor SharedUSBWatch {
    private var registry: USBReaderRegistry?
    private var watchers = 0

    /// Starts watching for `selector` and returns its view and the token that ends it. The first
    /// watcher opens libusb with its configuration and logger; later ones share them.
    func watch(
        _ selector: USBReaderSelector, configuration: CCIDDriverConfiguration, pollingInterval: Duration,
        logger: Logger
    ) async throws -> (view: USBReaderView, token: Int) {
        let shared: USBReaderRegistry
        if let registry {
            shared = registry
        } else {
            shared = try USBReaderRegistry(
                configuration: configuration, pollingInterval: pollingInterval, logger: logger, accept: { _ in false })
            registry = shared
        }
        watchers += 1
        let token = await shared.startAccepting { selector.matches($0) }
        return (USBReaderView(registry: shared, selector: selector), token)
    }

    /// Ends the watch `token` of `view`; the last one closes libusb.
    func end(_ token: Int) async {
        guard let registry else { return }
        await registry.stopAccepting(token)
        watchers -= 1
        if watchers == 0 {
            self.registry = nil
            await registry.close()
        }
    }
}

/// The readers of a shared USB registry that one selector names.
struct USBReaderView: ReaderRegistry {
    let registry: USBReaderRegistry
    let selector: USBReaderSelector

    func readers() async -> [Reader] {
        var named: [Reader] = []
        for reader in await registry.readers() where selector.matches(reader.info) { named.append(reader) }
        return named
    }

    func events() async -> AsyncStream<ReaderRegistryEvent> {
        let all = await registry.events()
        let selector = self.selector
        let (stream, continuation) = AsyncStream.makeStream(of: ReaderRegistryEvent.self)
        let forwarding = Task {
            for await event in all {
                switch event {
                case .added(let reader) where selector.matches(reader.info): continuation.yield(event)
                case .removed(let info) where selector.matches(info): continuation.yield(event)
                default: break
                }
            }
            continuation.finish()
        }
        continuation.onTermination = { _ in forwarding.cancel() }
        return stream
    }
}
