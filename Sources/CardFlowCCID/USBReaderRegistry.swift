import CardFlow
import CardFlowCCIDProtocol
import Logging

/// USB CCID readers as they are plugged in and out: each reader that arrives is opened (quirks
/// applied, interface claimed) and becomes a ``/CardFlow/Reader`` (one per slot for a multi-slot reader,
/// see ``/CardFlowCCID/CardFlow/Reader/slotReaders(info:driver:logger:metricsFactory:)``); one that leaves is closed
/// and its readers removed.
///
/// ```swift
/// let registry = try USBReaderRegistry(logger: logger)
/// for await event in await registry.events() {
///     switch event {
///     case .added(let reader): print("reader", reader.info.name)
///     case .removed(let info): print("gone", info.name)
///     }
/// }
/// ```
///
/// A reader that cannot be opened (claimed by pcscd, no permission) is logged with the fix and
/// skipped; it is tried again when it is plugged in again.
public actor USBReaderRegistry: ReaderRegistry {
    private let context: LibUSBContext
    private let registry = ManagedReaderRegistry()
    private let configuration: CCIDDriverConfiguration
    /// Which readers to open: a reader is opened while any of these accepts it. The one given to
    /// `init` has key 0; ``USBReaderSource`` adds and removes one per watching selector.
    private var acceptors: [Int: @Sendable (USBReaderDescription) -> Bool]
    private var nextAcceptor = 1
    private let logger: Logger
    /// Every reader plugged in now, opened or not, so an acceptor added later can open it.
    private var present: [String: USBReaderDescription] = [:]
    /// Per opened interface: its transport, where it sits, and the ids of its slots' readers.
    private var opened: [String: (transport: LibUSBTransport, bus: UInt8, address: UInt8, readerIDs: [String])] = [:]

    /// Opens libusb and starts watching (hotplug, or enumeration polling where hotplug is
    /// unavailable).
    ///
    /// - Parameters:
    ///   - configuration: the drivers' settings.
    ///   - pollingInterval: how often to enumerate where hotplug is unavailable.
    ///   - logger: where the registry and its readers log.
    ///   - accept: the readers to open (the others are left alone, for another program or
    ///     registry to claim); all by default.
    public init(
        configuration: CCIDDriverConfiguration = CCIDDriverConfiguration(),
        pollingInterval: Duration = .seconds(1), logger: Logger = Logger(label: "cardflow.usb"),
        accept: @escaping @Sendable (USBReaderDescription) -> Bool = { _ in true }
    ) throws {
        context = try LibUSBContext(logger: logger)
        self.configuration = configuration
        acceptors = [0: accept]
        self.logger = logger
        // The stream ends when the context is closed, which ends this task.
        let events = context.readerEvents(pollingInterval: pollingInterval)
        Task { [weak self] in
            for await event in events {
                guard let self else { return }
                await self.handle(event)
            }
        }
    }

    public func readers() async -> [Reader] { await registry.readers() }

    public func events() async -> AsyncStream<ReaderRegistryEvent> { await registry.events() }

    /// Closes every reader and libusb.
    public func close() async {
        for entry in opened.values {
            entry.transport.close()
            for readerID in entry.readerIDs { await registry.remove(id: readerID) }
        }
        opened.removeAll()
        context.close()
    }

    /// Opens, besides what the registry opens already, every reader `accept` accepts (those
    /// plugged in now and those that arrive later), until ``stopAccepting(_:)``.
    ///
    /// - Returns: the token for ``stopAccepting(_:)``.
    func startAccepting(_ accept: @escaping @Sendable (USBReaderDescription) -> Bool) async -> Int {
        let token = nextAcceptor
        nextAcceptor += 1
        acceptors[token] = accept
        for (id, description) in present.sorted(by: { $0.key < $1.key }) where opened[id] == nil && accept(description)
        {
            await open(description, id: id)
        }
        return token
    }

    /// Stops opening what the acceptor `token` accepts, and closes the readers no other acceptor
    /// wants (they are left for another program to claim).
    func stopAccepting(_ token: Int) async {
        acceptors[token] = nil
        for (id, entry) in opened {
            guard let description = present[id], !isAccepted(description) else { continue }
            entry.transport.close()
            opened[id] = nil
            for readerID in entry.readerIDs { await registry.remove(id: readerID) }
        }
    }

    private func isAccepted(_ description: USBReaderDescription) -> Bool {
        acceptors.values.contains { $0(description) }
    }

    private func handle(_ event: USBReaderEvent) async {
        switch event {
        case .arrived(let description):
            let id = ReaderInfo.usbID(description)
            present[id] = description
            guard opened[id] == nil, isAccepted(description) else { return }
            await open(description, id: id)
        case .left(let bus, let address):
            for (id, description) in present where description.bus == bus && description.address == address {
                present[id] = nil
            }
            for (id, entry) in opened where entry.bus == bus && entry.address == address {
                entry.transport.close()
                opened[id] = nil
                for readerID in entry.readerIDs {
                    await registry.remove(id: readerID)
                    logger.info("reader removed", metadata: ["id": "\(readerID)"])
                }
            }
        }
    }

    private func open(_ description: USBReaderDescription, id: String) async {
        do {
            let (transport, driver) = try context.openDriver(
                for: description, configuration: configuration, logger: logger)
            let info = ReaderInfo(usb: description, descriptor: driver.descriptor)
            let readers = Reader.slotReaders(info: info, driver: driver, logger: logger)
            opened[id] = (transport, description.bus, description.address, readers.map(\.info.id))
            for reader in readers {
                await registry.add(reader)
                logger.info("reader added", metadata: ["reader": "\(reader.info.name)", "id": "\(reader.info.id)"])
            }
        } catch {
            logger.error("cannot open reader", metadata: ["reader": "\(description.name)", "error": "\(error)"])
        }
    }
}
