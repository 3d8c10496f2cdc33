/// What a uFR Nano Online answers on its discovery port (UDP 8880) to any datagram: its IPv4
/// address and, for each of its two UARTs, the network port, the transport and the baud rate
/// (ufr.md §1.3, from Digital Logic's Online quick-start and knowledge base):
///
/// | bytes | field |
/// |---|---|
/// | 0–3 | IPv4 address |
/// | 4–5 | UART1 port, little-endian |
/// | 6 | `T` (TCP) or `U` (UDP) |
/// | 7–10 | UART1 baud rate, little-endian |
/// | 11–12, 13, 14–17 | the same for UART2 |
///
/// Bytes after the 18th are read when they are `0B <serial in ASCII> 00` (the reader's serial,
/// as pyuFR accepts it; not in the vendor's documents) and ignored otherwise, since the layout
/// is documented as "at least 18 bytes".
///
/// ```swift
/// let answer = try UFRDiscoveryAnswer(bytes: datagram)
/// answer.ports[0].endpoint(host: answer.host)   // .tcp(host: "192.168.1.5", port: 8881)
/// ```
public struct UFRDiscoveryAnswer: Sendable, Hashable {
    /// The transport a UART's port is served over (set per device in its web interface).
    public enum Transport: String, Sendable, Hashable {
        case tcp
        case udp
    }

    /// One UART's network port.
    public struct Port: Sendable, Hashable {
        /// 1 or 2.
        public let uart: Int
        /// The TCP or UDP port its bytes go to (8881 and 8882 by default).
        public let port: Int
        public let transport: Transport
        /// The UART's speed towards the reader module.
        public let baudRate: Int

        /// The ``UFREndpoint`` that opens this port of the reader at `host`.
        public func endpoint(host: String) -> UFREndpoint {
            switch transport {
            case .tcp: .tcp(host: host, port: port)
            case .udp: .udp(host: host, port: port)
            }
        }
    }

    /// The address the reader reports, as four bytes.
    public let address: [UInt8]
    /// UART1's port, then UART2's.
    public let ports: [Port]
    /// The reader's serial (such as `ON123456`) when the answer carries one.
    public let serial: String?

    /// The address in dotted form.
    public var host: String { address.map(String.init).joined(separator: ".") }

    /// The length of the documented part.
    public static let minimumLength = 18

    /// Reads an answer.
    ///
    /// - Throws: ``UFRDiscoveryAnswerError``: fewer than 18 bytes, a transport byte other than
    ///   `T` or `U`, a port 0.
    public init(bytes: [UInt8]) throws(UFRDiscoveryAnswerError) {
        guard bytes.count >= Self.minimumLength else { throw .tooShort(bytes.count) }
        address = Array(bytes[0..<4])
        var ports: [Port] = []
        for (uart, offset) in [(1, 4), (2, 11)] {
            let port = Int(bytes[offset]) | Int(bytes[offset + 1]) << 8
            guard port != 0 else { throw .noPort(uart: uart) }
            let transport: Transport
            switch bytes[offset + 2] {
            case UInt8(ascii: "T"): transport = .tcp
            case UInt8(ascii: "U"): transport = .udp
            default: throw .unknownTransport(uart: uart, byte: bytes[offset + 2])
            }
            let baudRate = (offset + 3..<offset + 7).reversed().reduce(0) { $0 << 8 | Int(bytes[$1]) }
            ports.append(Port(uart: uart, port: port, transport: transport, baudRate: baudRate))
        }
        self.ports = ports
        serial = Self.serial(in: bytes[Self.minimumLength...])
    }

    /// `0B <printable ASCII> 00`, or nil.
    private static func serial(in tail: ArraySlice<UInt8>) -> String? {
        guard tail.count >= 3, tail.first == 0x0B, tail.last == 0x00 else { return nil }
        let text = tail.dropFirst().dropLast()
        guard text.allSatisfy({ (0x21...0x7E).contains($0) }) else { return nil }
        return String(decoding: text, as: UTF8.self)
    }
}
