import NIOCore

/// The async channel type both roles use: payloads in, payloads out (framing in the pipeline).
typealias VPCDAsyncChannel = NIOAsyncChannel<[UInt8], [UInt8]>

extension VPCDAsyncChannel {
    /// Adds the vpcd codec to a fresh TCP channel and wraps it. Runs on the channel's event loop.
    static func wrapping(_ channel: any Channel, maximumPayload: Int) throws -> VPCDAsyncChannel {
        // Small request/response messages: Nagle plus delayed ACK would add ~40 ms to each.
        try channel.syncOptions?.setOption(.tcpOption(.tcp_nodelay), value: 1)
        try channel.pipeline.syncOperations.addHandler(VPCDQuickAck())
        try channel.pipeline.syncOperations.addHandler(
            // The buffer bound is a second line behind the decoder's own length check.
            ByteToMessageHandler(VPCDFrameDecoder(maximumPayload: maximumPayload), maximumBufferSize: maximumPayload + 2))
        try channel.pipeline.syncOperations.addHandler(MessageToByteHandler(VPCDFrameEncoder()))
        // A low watermark: the protocol never has more than one answer in flight, so anything
        // beyond a few messages is a misbehaving peer, which should wait on TCP, not in memory.
        return try VPCDAsyncChannel(
            wrappingChannelSynchronously: channel,
            configuration: .init(backPressureStrategy: .init(lowWatermark: 1, highWatermark: 2)))
    }
}
