import CardFlow
import CardFlowPCSCLite

/// Readers pcscd owns as a ``/CardFlow/ReaderSource``: selectors `pcsc` (every reader pcscd
/// serves; card commands use the first) and `pcsc:NAME-PREFIX` (the readers whose names start
/// with it). CardFlow shares them with pcscd's other clients.
///
/// Opened to watch (``/CardFlow/ReaderSourceOptions/watch``), readers come and go with pcscd's
/// plug-and-play notices (``PCSCReaderRegistry``); otherwise the readers pcscd lists now are
/// opened.
///
/// ```swift
/// let sources: [any ReaderSource] = [PCSCReaderSource()]
/// let opened = try await ReaderSelector(parsing: "pcsc:Gemalto", sources: sources)
///     .open(options: ReaderSourceOptions(logger: logger))
/// ```
public struct PCSCReaderSource: ReaderSource {
    public init() {}

    public var scheme: String { "pcsc" }

    public var forms: [String] { ["pcsc[:NAME-PREFIX]"] }

    /// A reader-name prefix, or nothing.
    public func check(_ selector: String) throws {
        _ = try Self.namePrefix(selector)
    }

    public func accepts(_ info: ReaderInfo, selector: String) -> Bool {
        guard info.backend == scheme, let prefix = try? Self.namePrefix(selector) else { return false }
        return info.name.hasPrefix(prefix)
    }

    public func open(_ selector: String, options: ReaderSourceOptions) async throws -> OpenedReaders {
        let prefix = try Self.namePrefix(selector)
        if options.watch {
            let registry: PCSCReaderRegistry
            do {
                registry = try await PCSCReaderRegistry(logger: options.logger) { $0.hasPrefix(prefix) }
            } catch {
                throw ReaderBackendUnavailable(scheme: scheme, underlying: error)
            }
            return OpenedReaders(readers: [], arrivals: registry, close: { await registry.close() })
        }
        let context: PCSCContext
        do {
            context = try await PCSCContext(logger: options.logger)
        } catch {
            throw ReaderBackendUnavailable(scheme: scheme, underlying: error)
        }
        let names: [String]
        do {
            names = try await context.readers().filter { $0.hasPrefix(prefix) }
        } catch {
            try? await context.release()
            throw error
        }
        guard !names.isEmpty else {
            // Nothing to use the context for: released now, not by its deinit on its own thread,
            // which could still be inside libpcsclite when a caller that gives up exits.
            try? await context.release()
            return OpenedReaders(readers: [], close: {})
        }
        let readers = names.map { name in
            // The driver's own lines (presence watch) stay out of the APDU trace.
            Reader(
                info: PCSCReaderDriver.info(reader: name),
                driver: PCSCReaderDriver(context: context, reader: name, logger: options.logger),
                logger: options.readerLogger)
        }
        return OpenedReaders(
            readers: readers,
            close: {
                // Watch threads must be out of libpcsclite before the context goes (and the process exits).
                for reader in readers { await reader.pcsc?.close() }
                try? await context.release()
            })
    }

    private static func namePrefix(_ selector: String) throws(PCSCSelectorError) -> String {
        guard selector == "pcsc" || selector.hasPrefix("pcsc:") else { throw .notAPCSCSelector }
        let prefix = String(selector.dropFirst(5))
        guard selector == "pcsc" || !prefix.isEmpty else { throw .emptyNamePrefix }
        return prefix
    }
}

/// A `pcsc` selector that cannot be parsed.
public enum PCSCSelectorError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The text is not `pcsc` or `pcsc:NAME-PREFIX`.
    case notAPCSCSelector
    /// `pcsc:` with nothing after it.
    case emptyNamePrefix

    public var description: String {
        switch self {
        case .notAPCSCSelector: "expected pcsc or pcsc:NAME-PREFIX"
        case .emptyNamePrefix: "the reader name prefix is empty"
        }
    }
}
