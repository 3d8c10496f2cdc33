/// A byte link to a uFR reader: a TCP connection or a serial line (a byte stream), or UDP
/// datagrams to a uFR Nano Online. ``UFRConnection`` runs the COM protocol over it.
///
/// ```swift
/// let link = try await UFRNIOLink.tcp(host: "192.168.1.5", port: 8881)
/// let connection = UFRConnection(link: link, logger: logger)
/// ```
public protocol UFRLink: Sendable {
    /// Where the link goes, for messages and reader ids: `tcp:192.168.1.5:8881`.
    var endpoint: String { get }
    /// Whether the link carries datagrams that may be lost, duplicated or reordered (UDP):
    /// ``UFRConnection`` then sends read-only commands again when no answer comes, and drops
    /// bytes left from an earlier command before a new one.
    var isDatagram: Bool { get }
    /// What the reader sends, in order, then ``UFRLinkEvent/closed(_:)`` once. Iterate it once.
    var incoming: AsyncStream<UFRLinkEvent> { get }
    /// Sends bytes to the reader (one datagram on a datagram link).
    func send(_ bytes: [UInt8]) async throws
    /// Closes the link; ``incoming`` ends.
    func close() async
}

/// What a ``UFRLink`` delivers.
public enum UFRLinkEvent: Sendable, Hashable {
    /// Bytes from the reader (one read, segment or datagram).
    case bytes([UInt8])
    /// The link closed; the text says why when it failed.
    case closed(String?)
}
