import NIOCore

enum VPCDChannel {
    /// Sets up a fresh TCP channel for vpcd messages, either role. Runs on the channel's event loop.
    static func addCodec(to channel: any Channel, maximumPayload: Int) throws {
        // Small request/response messages: Nagle plus delayed ACK would add ~40 ms to each.
        try channel.syncOptions?.setOption(.tcpOption(.tcp_nodelay), value: 1)
        try channel.pipeline.syncOperations.addHandler(VPCDQuickAck())
        try channel.pipeline.syncOperations.addHandler(
            // The buffer bound is a second line behind the decoder's own length check.
            ByteToMessageHandler(
                VPCDFrameDecoder(maximumPayload: maximumPayload), maximumBufferSize: maximumPayload + 2))
        try channel.pipeline.syncOperations.addHandler(MessageToByteHandler(VPCDFrameEncoder()))
    }
}

/// A card side's connection as the listener accepts it: the channel and its exchange handler.
struct VPCDAcceptedChannel: Sendable {
    let channel: any Channel
    let exchanges: NIOLoopBound<VPCDExchangeHandler>
}
