import NIOCore
import NIOPosix

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// TCP keep-alive for a vpcd connection: how a side finds out that its peer vanished without
/// closing the connection.
///
/// The vpcd protocol has no heartbeat: a reader with no command to send says nothing, and a card
/// side only answers. When the peer's host goes away without a FIN or reset (power loss, a
/// dropped network, or a connect that raced the listener's exit and left a connection with
/// nothing on the other end), each side would wait on it forever: the reader keeps reporting a
/// card that is gone, and a ``VPCDCardExporter`` never connects to the reader again. With
/// keep-alive the kernel probes an idle connection and closes it when the probes go unanswered or
/// are reset; a live peer's kernel answers them, so a merely idle connection is never dropped.
///
/// ```swift
/// var configuration = VPCDCardExporter.Configuration()
/// configuration.keepAlive = VPCDKeepAlive(idle: .seconds(30), interval: .seconds(10), probes: 3)
/// ```
public struct VPCDKeepAlive: Sendable, Hashable {
    /// How long a connection is idle before the first probe.
    public var idle: Duration
    /// The time between unanswered probes.
    public var interval: Duration
    /// How many unanswered probes close the connection.
    public var probes: Int

    /// Whole seconds are used (rounded up, 1 to 32,767 s); `probes` is kept within 1...127, the
    /// kernel's range.
    public init(idle: Duration = .seconds(10), interval: Duration = .seconds(5), probes: Int = 3) {
        self.idle = idle
        self.interval = interval
        self.probes = probes
    }

    /// The default: the first probe after 10 s idle, then every 5 s, closed after 3 unanswered
    /// (a vanished peer is noticed after about 25 s; a reset answers the first probe).
    public static let standard = VPCDKeepAlive()

    /// The longest a vanished peer goes unnoticed on an idle connection.
    public var detectionTime: Duration {
        .seconds(Int64(Self.wholeSeconds(idle)) + Int64(Self.wholeSeconds(interval)) * Int64(probeCount))
    }

    /// The socket options that turn it on, in the order they are set.
    package var socketOptions: [(option: ChannelOptions.Types.SocketOption, value: SocketOptionValue)] {
        [
            (ChannelOptions.Types.SocketOption(level: .socket, name: .so_keepalive), 1),
            (Self.tcp(TCP_KEEPIDLE), Self.wholeSeconds(idle)),
            (Self.tcp(TCP_KEEPINTVL), Self.wholeSeconds(interval)),
            (Self.tcp(TCP_KEEPCNT), probeCount),
        ]
    }

    private var probeCount: Int { min(max(probes, 1), 127) }

    private static func tcp(_ name: CInt) -> ChannelOptions.Types.SocketOption {
        ChannelOptions.Types.SocketOption(level: .tcp, name: NIOBSDSocket.Option(rawValue: name))
    }

    /// Whole seconds, rounded up, between 1 and the kernel's limit for these options (32,767).
    static func wholeSeconds(_ duration: Duration) -> Int {
        let (seconds, attoseconds) = duration.components
        guard seconds >= 0 else { return 1 }
        let rounded = attoseconds > 0 && seconds < 32_767 ? seconds + 1 : seconds
        return Int(min(max(rounded, 1), 32_767))
    }
}

extension ClientBootstrap {
    /// Sets `keepAlive`'s socket options on the connection (none when `nil`).
    package func vpcdKeepAlive(_ keepAlive: VPCDKeepAlive?) -> ClientBootstrap {
        (keepAlive?.socketOptions ?? []).reduce(self) { $0.channelOption($1.option, value: $1.value) }
    }
}

extension ServerBootstrap {
    /// Sets `keepAlive`'s socket options on every accepted connection (none when `nil`).
    package func vpcdKeepAlive(_ keepAlive: VPCDKeepAlive?) -> ServerBootstrap {
        (keepAlive?.socketOptions ?? []).reduce(self) { $0.childChannelOption($1.option, value: $1.value) }
    }
}
