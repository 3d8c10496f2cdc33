import CardFlow
import CardFlowVPCDProtocol

/// A network reader over vsmartcard's vpcd protocol as a ``/CardFlow/ReaderSource``: selectors
/// `vpcd`, `vpcd:PORT` and `vpcd:HOST:PORT` listen (on 127.0.0.1:35963 by default) for a vpcd
/// card side, such as vsmartcard's `vicc` or the Android remote reader app, and open one reader,
/// id `vpcd:HOST:PORT`, whose card is whatever connects.
///
/// ```swift
/// let sources: [any ReaderSource] = [VPCDReaderSource()]
/// let opened = try await ReaderSelector(parsing: "vpcd:35964", sources: sources)
///     .open(options: ReaderSourceOptions(logger: logger))
/// ```
public struct VPCDReaderSource: ReaderSource {
    /// vpcd's first slot listens on 35963 (0x8C7B).
    public static let defaultPort = 35963

    public init() {}

    public var scheme: String { "vpcd" }

    public var forms: [String] { ["vpcd[:HOST][:PORT]"] }

    public func check(_ selector: String) throws {
        _ = try Self.endpoint(selector)
    }

    public func accepts(_ info: ReaderInfo, selector: String) -> Bool {
        guard let endpoint = try? Self.endpoint(selector) else { return false }
        return info.backend == scheme && info.id == "vpcd:\(endpoint.host):\(endpoint.port)"
    }

    public func open(_ selector: String, options: ReaderSourceOptions) async throws -> OpenedReaders {
        let endpoint = try Self.endpoint(selector)
        // The program is the reader: card commands wait (as long as the session's connect
        // timeout) for a card side to connect.
        let listener = try await VPCDListener.bind(host: endpoint.host, port: endpoint.port, logger: options.logger)
        return OpenedReaders(
            readers: [Reader(vpcd: listener, logger: options.readerLogger)], close: { await listener.close() })
    }

    /// The host and port a selector listens on.
    public static func endpoint(_ selector: String) throws(VPCDSelectorError) -> (host: String, port: Int) {
        guard selector == "vpcd" || selector.hasPrefix("vpcd:") else { throw .notAVPCDSelector }
        let parts = selector.split(separator: ":", omittingEmptySubsequences: false).dropFirst().map(String.init)
        let host = parts.count == 2 ? parts[0] : "127.0.0.1"
        guard parts.count <= 2, !host.isEmpty else { throw .notAVPCDSelector }
        guard let portText = parts.last else { return (host, defaultPort) }
        guard let port = Int(portText), (0...65_535).contains(port), portText.allSatisfy(\.isASCII) else {
            throw .badPort
        }
        return (host, port)
    }
}

/// A `vpcd` selector that cannot be parsed.
public enum VPCDSelectorError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The text is not `vpcd`, `vpcd:PORT` or `vpcd:HOST:PORT`.
    case notAVPCDSelector
    /// The port is not a number from 0 to 65535.
    case badPort

    public var description: String {
        switch self {
        case .notAVPCDSelector: "expected vpcd, vpcd:PORT or vpcd:HOST:PORT"
        case .badPort: "the port must be a number from 0 to 65535"
        }
    }
}
