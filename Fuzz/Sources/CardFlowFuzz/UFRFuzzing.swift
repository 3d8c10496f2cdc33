import CardFlowUFR
import FuzzSupport

/// What a uFR reader (or anything posing as one on its TCP/UDP port or serial line) sends: the
/// frame decoder behind every uFR link.
enum UFRFuzzing {
    /// Input: a chunk-size byte (how the link cuts the bytes: 1…16 bytes per read), then the
    /// bytes. Each call to `next()` must consume at least one byte or ask for more, so decoding
    /// ends within one call per byte; every reply re-encodes to bytes that decode to itself; the
    /// decoder never holds more than it was given.
    static func frames(_ bytes: [UInt8]) {
        var input = FuzzInput(bytes)
        let chunk = Int(input.byte() % 16) + 1
        let wire = input.rest()
        var decoder = UFRReplyDecoder()
        var appended = 0
        var calls = 0
        var chunks = 0
        var offset = 0
        while offset < wire.count {
            let piece = wire[offset..<min(wire.count, offset + chunk)]
            offset += piece.count
            chunks += 1
            decoder.append(piece)
            appended += piece.count
            while true {
                calls += 1
                fuzzCheck(calls <= appended + chunks, "a call to next() consumed no byte and asked for none")
                let frame: UFRIncomingFrame?
                do {
                    frame = try decoder.next()
                } catch {
                    continue
                }
                guard let frame else { break }
                if case .reply(let reply) = frame {
                    var again = UFRReplyDecoder()
                    again.append(reply.bytes)
                    let decoded = try? again.next()
                    fuzzCheck(decoded == .reply(reply), "\(reply) does not survive encoding")
                    fuzzCheck(reply.extensionData.count <= 254, "EXT of \(reply.extensionData.count) bytes")
                }
            }
            fuzzCheck(decoder.bufferedByteCount <= appended, "decoder holds bytes it was not given")
            fuzzCheck(decoder.bufferedByteCount < 7 + 255 + chunk, "decoder holds \(decoder.bufferedByteCount) bytes")
        }
    }
}
