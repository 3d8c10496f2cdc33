import CardFlowDaemonControl
import NIOCore
import NIOEmbedded
import Testing

/// The control socket's line splitter, byte for byte: bounded memory, and every line — also an
/// oversize one cut off by the end of the stream — answered.
@Suite("control line decoder")
struct ControlLineDecoderTests {
    private func decode(_ chunks: [String], limit: Int = 8) throws -> [ControlLine] {
        let channel = EmbeddedChannel(handler: ByteToMessageHandler(ControlLineDecoder(maximumLength: limit)))
        for chunk in chunks {
            try channel.writeInbound(channel.allocator.buffer(string: chunk))
        }
        try channel.finish(acceptAlreadyClosed: true)
        var lines: [ControlLine] = []
        while let line = try channel.readInbound(as: ControlLine.self) { lines.append(line) }
        return lines
    }

    @Test func splitsLinesAcrossChunksAndDropsCarriageReturns() throws {
        #expect(try decode(["ab", "c\r\nde\n", "f"]) == [.line("abc"), .line("de"), .line("f")])
    }

    @Test func anOversizeLineIsReportedOnceWhenItsNewlineArrives() throws {
        #expect(try decode(["0123456789", "abc\nok\n"]) == [.tooLong(limit: 8), .line("ok")])
    }

    @Test func anOversizeLastLineWithoutNewlineIsStillReported() throws {
        // Its bytes were dropped as they arrived, so nothing is left in the buffer at the end.
        #expect(try decode(["ok\n", "0123456789"]) == [.line("ok"), .tooLong(limit: 8)])
        #expect(try decode(["0123456789", "0123456789"]) == [.tooLong(limit: 8)])
    }

    @Test func aLastLineWithinTheLimitCounts() throws {
        #expect(try decode(["ok\nlast"]) == [.line("ok"), .line("last")])
        #expect(try decode(["ok\n"]) == [.line("ok")])
    }
}
