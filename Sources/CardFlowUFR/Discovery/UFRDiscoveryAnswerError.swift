import CardFlow

/// Why a datagram on the discovery port is not a uFR Nano Online's answer
/// (``UFRDiscoveryAnswer``).
public enum UFRDiscoveryAnswerError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Fewer than the 18 documented bytes.
    case tooShort(Int)
    /// A UART's transport byte is neither `T` nor `U`.
    case unknownTransport(uart: Int, byte: UInt8)
    /// A UART's port is 0.
    case noPort(uart: Int)

    public var description: String {
        switch self {
        case .tooShort(let count): "a uFR discovery answer has at least 18 bytes; got \(count)"
        case .unknownTransport(let uart, let byte):
            "UART\(uart)'s transport byte is \([byte].hexString), neither T (TCP) nor U (UDP)"
        case .noPort(let uart): "UART\(uart)'s port is 0"
        }
    }
}

extension UFRDiscoveryAnswerError: CategorizedError {
    /// Always the reader: the answer came from a device on the network.
    public var category: ErrorCategory { .reader }
}
