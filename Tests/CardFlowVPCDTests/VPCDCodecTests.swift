import CardFlowVPCDProtocol
import NIOCore
import NIOEmbedded
import Testing

/// The vpcd framing, byte for byte: 2-byte big-endian length, then the payload.
@Suite("vpcd codec")
struct VPCDCodecTests {
    @Test("control messages are single bytes 00 01 02 04 in a 1-byte frame")
    func controlMessages() throws {
        #expect(try VPCDFraming.frame(VPCDMessage.powerOff.payload) == [0x00, 0x01, 0x00])
        #expect(try VPCDFraming.frame(VPCDMessage.powerOn.payload) == [0x00, 0x01, 0x01])
        #expect(try VPCDFraming.frame(VPCDMessage.reset.payload) == [0x00, 0x01, 0x02])
        #expect(try VPCDFraming.frame(VPCDMessage.getATR.payload) == [0x00, 0x01, 0x04])
        #expect(try VPCDMessage(payload: [0x00]) == .powerOff)
        #expect(try VPCDMessage(payload: [0x01]) == .powerOn)
        #expect(try VPCDMessage(payload: [0x02]) == .reset)
        #expect(try VPCDMessage(payload: [0x04]) == .getATR)
        #expect(try VPCDMessage(payload: [0x03]) == .unknownControl(0x03))
        #expect(VPCDMessage.getATR.expectsAnswer && !VPCDMessage.powerOn.expectsAnswer)
    }

    @Test("a payload of two or more bytes from the reader is a command APDU")
    func commands() throws {
        #expect(try VPCDMessage(payload: [0x00, 0xA4]) == .command([0x00, 0xA4]))
        let select = hex("00A4040007A000000247100100")
        #expect(try VPCDMessage(payload: select) == .command(select))
        #expect(try VPCDFraming.frame(select) == [0x00, 0x0D] + select)
        #expect(throws: VPCDError.emptyMessage) { try VPCDMessage(payload: []) }
    }

    @Test("lengths are big-endian, up to 65,535; empty and longer payloads cannot be framed")
    func lengths() throws {
        let long = [UInt8](repeating: 0xAB, count: 258)
        #expect(Array(try VPCDFraming.frame(long).prefix(2)) == [0x01, 0x02])
        let longest = [UInt8](repeating: 0, count: 65_535)
        #expect(Array(try VPCDFraming.frame(longest).prefix(2)) == [0xFF, 0xFF])
        #expect(throws: VPCDError.notFramable(length: 0)) { try VPCDFraming.frame([]) }
        #expect(throws: VPCDError.notFramable(length: 65_536)) {
            try VPCDFraming.frame([UInt8](repeating: 0, count: 65_536))
        }
    }

    @Test("the encoder writes the length prefix and refuses an empty payload")
    func encoder() throws {
        let channel = EmbeddedChannel(handler: MessageToByteHandler(VPCDFrameEncoder()))
        try channel.writeOutbound([UInt8]([0x90, 0x00]))
        let written = try #require(try channel.readOutbound(as: ByteBuffer.self))
        #expect(Array(written.readableBytesView) == [0x00, 0x02, 0x90, 0x00])
        #expect(throws: VPCDError.notFramable(length: 0)) { try channel.writeOutbound([UInt8]()) }
        _ = try? channel.finish()
    }

    /// A stream of three messages: the ATR, a 258-byte response, a control byte.
    static let messages: [[UInt8]] = [
        hex("3B8180018080"),
        (0..<256).map { UInt8($0 % 251) } + [0x90, 0x00],
        [0x01],
    ]
    static let stream: [UInt8] = messages.flatMap { try! VPCDFraming.frame($0) }

    private func decoded(_ chunks: [[UInt8]], maximumPayload: Int = 65_538) throws -> [[UInt8]] {
        let channel = EmbeddedChannel(handler: ByteToMessageHandler(VPCDFrameDecoder(maximumPayload: maximumPayload)))
        var out: [[UInt8]] = []
        for chunk in chunks {
            try channel.writeInbound(ByteBuffer(bytes: chunk))
            while let message = try channel.readInbound(as: [UInt8].self) { out.append(message) }
        }
        #expect(try channel.finish().isClean)
        return out
    }

    @Test("messages split at every byte position decode the same")
    func splitEverywhere() throws {
        for split in 0...Self.stream.count {
            let chunks = [Array(Self.stream[..<split]), Array(Self.stream[split...])]
            #expect(try decoded(chunks) == Self.messages, "split at \(split)")
        }
    }

    @Test("a stream fed one byte at a time decodes the same; nothing comes out before a message is complete")
    func byteByByte() throws {
        let channel = EmbeddedChannel(handler: ByteToMessageHandler(VPCDFrameDecoder()))
        var out: [[UInt8]] = []
        var boundaries: [Int] = []
        for (index, byte) in Self.stream.enumerated() {
            try channel.writeInbound(ByteBuffer(bytes: [byte]))
            while let message = try channel.readInbound(as: [UInt8].self) {
                out.append(message)
                boundaries.append(index + 1)
            }
        }
        #expect(out == Self.messages)
        #expect(boundaries == [8, 8 + 260, 8 + 260 + 3])
        _ = try channel.finish()
    }

    @Test("a zero-length message is refused")
    func zeroLength() throws {
        let channel = EmbeddedChannel(handler: ByteToMessageHandler(VPCDFrameDecoder()))
        #expect(throws: VPCDError.emptyMessage) {
            try channel.writeInbound(ByteBuffer(bytes: [0x00, 0x00, 0x90, 0x00]))
        }
        _ = try? channel.finish()
    }

    @Test("an oversized message is refused as soon as its length arrives, before its body")
    func oversized() throws {
        let channel = EmbeddedChannel(handler: ByteToMessageHandler(VPCDFrameDecoder(maximumPayload: 300)))
        try channel.writeInbound(ByteBuffer(bytes: [0x01]))
        #expect(throws: VPCDError.messageTooLarge(length: 301, maximum: 300)) {
            try channel.writeInbound(ByteBuffer(bytes: [0x2D]))
        }
        _ = try? channel.finish()
        // Exactly the maximum is fine.
        #expect(
            try decoded([[0x01, 0x2C] + [UInt8](repeating: 7, count: 300)], maximumPayload: 300).map(\.count) == [300])
    }

    @Test(
        "the connection ending inside a message is a truncated message",
        arguments: [([0x00], 2, 1), ([0x00, 0x10], 16, 0), ([0x00, 0x10, 0x01, 0x02], 16, 2)])
    func truncated(_ bytes: [UInt8], expected: Int, received: Int) throws {
        let channel = EmbeddedChannel(handler: ByteToMessageHandler(VPCDFrameDecoder()))
        try channel.writeInbound(ByteBuffer(bytes: bytes))
        #expect(throws: VPCDError.truncatedMessage(expected: expected, received: received)) { try channel.finish() }
    }

    @Test("takeMessage consumes nothing until a whole message is there")
    func takeMessage() throws {
        var buffer = ByteBuffer(bytes: [0x00, 0x03, 0x90])
        #expect(try VPCDFraming.takeMessage(from: &buffer, maximumPayload: 10) == nil)
        #expect(buffer.readableBytes == 3)
        buffer.writeBytes([0x00, 0x6A, 0x00, 0x01])
        #expect(try VPCDFraming.takeMessage(from: &buffer, maximumPayload: 10) == [0x90, 0x00, 0x6A])
        // What is left is the next message's length (1) without its byte.
        #expect(try VPCDFraming.takeMessage(from: &buffer, maximumPayload: 10) == nil)
        #expect(buffer.readableBytes == 2)
    }
}
