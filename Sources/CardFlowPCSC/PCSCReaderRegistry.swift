import CardFlow
import CardFlowPCSCLite
import Logging

/// The readers pcscd serves, as they come and go (`SCardGetStatusChange` on pcscd's plug-and-play
/// notification): each becomes a ``/CardFlow/Reader`` over a ``PCSCReaderDriver``, one that leaves is
/// removed. `accept` picks the readers wanted (by name).
///
/// ```swift
/// let registry = try await PCSCReaderRegistry(logger: logger) { $0.hasPrefix("Gemalto") }
/// let reader = try await registry.waitForReader()
/// ```
///
/// When pcscd stops, the registry logs it and its readers are removed; it does not reconnect.
public actor PCSCReaderRegistry: ReaderRegistry {
    private let context: PCSCContext
    private let registry = ManagedReaderRegistry()
    private let logger: Logger
    private var watcher: Task<Void, Never>?
    private let readerWatch: PCSCWatch<PCSCReaderEvent>
    private var drivers: [String: PCSCReaderDriver] = [:]

    /// Connects to pcscd (throws `SCARD_E_NO_SERVICE` when it is not running) and starts watching.
    public init(
        logger: Logger = Logger(label: "cardflow.pcsc"),
        accept: @escaping @Sendable (String) -> Bool = { _ in true }
    ) async throws {
        context = try await PCSCContext(logger: logger)
        self.logger = logger
        readerWatch = context.watchReaderChanges()
        let changes = readerWatch.updates
        watcher = Task { [weak self] in
            do {
                for try await change in changes {
                    switch change {
                    case .arrived(let name) where accept(name): await self?.arrived(name)
                    case .arrived: continue
                    case .departed(let name): await self?.departed(name)
                    }
                }
            } catch {
                logger.error("pcscd stopped answering; its readers are gone", metadata: ["error": "\(error)"])
                await self?.removeAll()
            }
        }
    }

    private func arrived(_ name: String) async {
        let reader = Reader(pcsc: name, context: context, logger: logger)
        drivers[name] = reader.pcsc
        await registry.add(reader)
        logger.info("reader added", metadata: ["reader": "\(name)", "backend": "pcsc"])
    }

    private func departed(_ name: String) async {
        await registry.remove(id: "pcsc:\(name)")
        await drivers.removeValue(forKey: name)?.close()
    }

    private func removeAll() async {
        for name in drivers.keys { await departed(name) }
    }

    public func readers() async -> [Reader] { await registry.readers() }

    public func events() async -> AsyncStream<ReaderRegistryEvent> { await registry.events() }

    /// Stops watching, closes the readers' drivers and releases the context; once it returns
    /// nothing of the registry is inside libpcsclite (see ``/CardFlowPCSCLite/PCSCWatch``).
    public func close() async {
        await readerWatch.stop()
        watcher?.cancel()
        await watcher?.value
        watcher = nil
        await removeAll()
        try? await context.release()
    }
}
