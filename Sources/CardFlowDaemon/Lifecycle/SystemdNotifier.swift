import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Tells systemd how the daemon is doing, as `sd_notify(3)` does, when it runs under a unit with
/// `Type=notify`: one datagram per state change to the Unix socket named by `NOTIFY_SOCKET`
/// (a path, or an abstract address when it starts with `@`).
///
/// cardd sends `READY=1` once its control socket listens and its readers are opened (so
/// `systemctl start` returns when clients can connect), `RELOADING=1` then `READY=1` around a
/// SIGHUP reload, and `STOPPING=1` when it shuts down.
///
/// ```swift
/// if let systemd = SystemdNotifier() {      // nil when not started by systemd
///     try systemd.notify("READY=1\nSTATUS=listening on /run/cardd/cardd.sock")
/// }
/// ```
public struct SystemdNotifier: Sendable, Hashable {
    /// The socket address from `NOTIFY_SOCKET`.
    public let socketPath: String

    /// Reads `NOTIFY_SOCKET`; nil when it is unset or not a socket address (no systemd, or a
    /// unit of another type), in which case there is nobody to notify.
    public init?(environment: [String: String] = ProcessInfo.processInfo.environment) {
        guard let path = environment["NOTIFY_SOCKET"], path.count > 1,
            path.hasPrefix("/") || path.hasPrefix("@")
        else { return nil }
        self.socketPath = path
    }

    /// Sends one notification (newline-separated `KEY=value` assignments).
    ///
    /// - Throws: ``SystemdNotifyError`` when the datagram cannot be sent; the caller logs it,
    ///   since systemd's time-out would then say the rest.
    public func notify(_ state: String) throws(SystemdNotifyError) {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        var pathBytes = Array(socketPath.utf8)
        let abstract = pathBytes.first == UInt8(ascii: "@")
        if abstract { pathBytes[0] = 0 } // Linux abstract namespace: a leading NUL, no terminator
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard pathBytes.count < capacity else { throw .addressTooLong(socketPath) }
        withUnsafeMutableBytes(of: &address.sun_path) { buffer in
            buffer.copyBytes(from: pathBytes)
        }
        let length = MemoryLayout<sockaddr_un>.offset(of: \sockaddr_un.sun_path)! + pathBytes.count + (abstract ? 0 : 1)
        let descriptor = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw .sendFailed(socketPath, errno: errno) }
        defer { close(descriptor) }
        let message = Array(state.utf8)
        let sent = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
                sendto(descriptor, message, message.count, Int32(MSG_NOSIGNAL), socketAddress, socklen_t(length))
            }
        }
        guard sent == message.count else { throw .sendFailed(socketPath, errno: errno) }
    }
}

/// Why a systemd notification was not delivered.
public enum SystemdNotifyError: Error, Sendable, Hashable, CustomStringConvertible {
    /// `NOTIFY_SOCKET` names an address longer than a Unix socket address can hold.
    case addressTooLong(String)
    /// The socket could not be opened or the datagram not sent.
    case sendFailed(String, errno: Int32)

    public var description: String {
        switch self {
        case .addressTooLong(let path): "NOTIFY_SOCKET \(path) is too long for a Unix socket address"
        case .sendFailed(let path, let code): "cannot notify systemd at \(path): \(String(cString: strerror(code)))"
        }
    }
}
