import NIOCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// What a socket error on a card connection means in vpcd terms: the card side resetting or
/// breaking the connection is the card side going away (``VPCDCardLossReason/peerClosed``), not
/// a failure of ours; anything else is a failed connection, told with the system's words for it
/// and not the name of the call that saw it.
enum VPCDSocketFailure {
    /// The loss reason for a non-protocol error caught on a card connection.
    static func lossReason(for error: any Error) -> VPCDCardLossReason {
        guard let io = error as? IOError else { return .writeFailed("\(error)") }
        switch io.errnoCode {
        case ECONNRESET, EPIPE, ECONNABORTED: return .peerClosed
        default: return .writeFailed(String(cString: strerror(io.errnoCode)) + " (errno \(io.errnoCode))")
        }
    }
}
