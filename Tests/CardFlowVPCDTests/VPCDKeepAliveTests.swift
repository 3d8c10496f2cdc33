import CardFlowVPCDProtocol
import NIOCore
import NIOPosix
import Testing

/// Keep-alive is what lets either side of a vpcd connection notice a peer that vanished without
/// closing it; these tests read the options back from real sockets, both ends of one connection.
@Suite("vpcd keep-alive")
struct VPCDKeepAliveTests {
    @Test("the detection time follows the kernel's units and ranges")
    func detectionTime() {
        #expect(VPCDKeepAlive.standard.detectionTime == .seconds(25))
        // Rounded up to whole seconds, at least 1 s and 1 probe.
        let tiny = VPCDKeepAlive(idle: .milliseconds(1_500), interval: .zero, probes: 0)
        #expect(tiny.detectionTime == .seconds(2 + 1 * 1))
        // Negative values and values past the kernel's limits are kept within them, no trap.
        let extreme = VPCDKeepAlive(idle: .seconds(Int64.max), interval: .seconds(-3), probes: Int.max)
        #expect(extreme.detectionTime == .seconds(32_767 + 1 * 127))
        // The largest duration with a fraction left over: no wrap-around to the minimum.
        let largest = VPCDKeepAlive(idle: .seconds(Int64.max) + .nanoseconds(1), interval: .seconds(1), probes: 1)
        #expect(largest.detectionTime == .seconds(32_767 + 1))
    }

    @Test("exporters and listeners use it unless told not to")
    func defaults() {
        #expect(VPCDCardExporter.Configuration().keepAlive == .standard)
        #expect(VPCDListener.Configuration().keepAlive == .standard)
    }

    @Test("both ends of a real connection carry the options")
    func optionsOnBothEnds() async throws {
        let keepAlive = VPCDKeepAlive(idle: .seconds(7), interval: .milliseconds(2_001), probes: 4)
        let (client, accepted, server) = try await Self.connect(keepAlive)
        #expect(try await Self.values(keepAlive, on: client).get() == [1, 7, 3, 4])
        #expect(try await accepted.get() == [1, 7, 3, 4])
        try await client.close()
        try await server.close()
    }

    @Test("nil leaves keep-alive off")
    func off() async throws {
        let (client, accepted, server) = try await Self.connect(nil)
        let option = ChannelOptions.Types.SocketOption(level: .socket, name: .so_keepalive)
        #expect(try await client.getOption(option).get() == 0)
        #expect(try await accepted.get() == [0])
        try await client.close()
        try await server.close()
    }

    /// A connection whose two ends were set up with `keepAlive`: the client channel, the values
    /// the accepted end reported (its keep-alive options, or only SO_KEEPALIVE for `nil`), and
    /// the server channel.
    private static func connect(
        _ keepAlive: VPCDKeepAlive?
    ) async throws -> (any Channel, EventLoopFuture<[SocketOptionValue]>, any Channel) {
        let group = MultiThreadedEventLoopGroup.singleton
        let accepted = group.next().makePromise(of: [SocketOptionValue].self)
        let server = try await ServerBootstrap(group: group)
            .vpcdKeepAlive(keepAlive)
            .childChannelInitializer { channel in
                // Child options are applied before the initializer runs.
                if let keepAlive {
                    accepted.completeWith(values(keepAlive, on: channel))
                } else {
                    let option = ChannelOptions.Types.SocketOption(level: .socket, name: .so_keepalive)
                    accepted.completeWith(channel.getOption(option).map { [$0] })
                }
                return channel.eventLoop.makeSucceededVoidFuture()
            }
            .bind(host: "127.0.0.1", port: 0).get()
        let port = try #require(server.localAddress?.port)
        let client = try await ClientBootstrap(group: group)
            .vpcdKeepAlive(keepAlive)
            .connect(host: "127.0.0.1", port: port).get()
        return (client, accepted.futureResult, server)
    }

    private static func values(
        _ keepAlive: VPCDKeepAlive, on channel: any Channel
    ) -> EventLoopFuture<[SocketOptionValue]> {
        EventLoopFuture.whenAllSucceed(
            keepAlive.socketOptions.map { channel.getOption($0.option) }, on: channel.eventLoop)
    }
}
