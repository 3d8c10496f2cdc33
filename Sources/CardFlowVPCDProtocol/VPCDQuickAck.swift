import NIOCore

#if canImport(Glibc)
import Glibc
#endif

/// Acknowledges received data at once (Linux `TCP_QUICKACK`), re-armed after every read
/// because the kernel drops back to delayed ACKs on its own.
///
/// Why: vsmartcard's vpcd writes a message's length and its payload in two `send` calls without
/// TCP_NODELAY. Nagle then holds the payload until the length is acknowledged, and a delayed
/// ACK holds that for ~40 ms: every APDU through pcscd took ~50 ms. Our own TCP_NODELAY cannot
/// fix the peer's sending side; acknowledging at once on our receiving side does.
final class VPCDQuickAck: ChannelInboundHandler, Sendable {
    typealias InboundIn = ByteBuffer

    func channelActive(context: ChannelHandlerContext) {
        Self.arm(context)
        context.fireChannelActive()
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        Self.arm(context)
        context.fireChannelReadComplete()
    }

    private static func arm(_ context: ChannelHandlerContext) {
        #if os(Linux)
        // Best effort: a socket that refuses it just keeps delayed ACKs.
        try? context.channel.syncOptions?.setOption(
            .tcpOption(NIOBSDSocket.Option(rawValue: CInt(TCP_QUICKACK))), value: 1)
        #endif
    }
}
