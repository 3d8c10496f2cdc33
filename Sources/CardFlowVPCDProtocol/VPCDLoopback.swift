import NIOCore

/// Decides whether a listening address stays on this machine.
enum VPCDLoopback {
    /// Whether `address` is in 127.0.0.0/8 or is ::1 (or an IPv4-mapped loopback address).
    static func isLoopback(_ address: SocketAddress) -> Bool {
        switch address {
        case .v4(let v4):
            // s_addr is in network byte order: the first octet is the lowest byte in memory.
            return UInt32(bigEndian: v4.address.sin_addr.s_addr) >> 24 == 127
        case .v6(let v6):
            let bytes = withUnsafeBytes(of: v6.address.sin6_addr) { Array($0) }
            if bytes == [UInt8](repeating: 0, count: 15) + [1] { return true }
            // ::ffff:127.x.y.z
            return bytes[0..<10].allSatisfy { $0 == 0 } && bytes[10] == 0xFF && bytes[11] == 0xFF && bytes[12] == 127
        case .unixDomainSocket:
            return true
        }
    }
}
