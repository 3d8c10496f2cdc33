import CardFlowUFR
#if canImport(FuzzSupport)
import FuzzSupport
#endif

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

    /// What anything on the network sends to a discovery search: a datagram is an answer or a
    /// typed error; an answer has two UARTs with ports 1…65535, and its serial, when read, is the
    /// printable bytes between 0B and the final 00.
    static func discoveryAnswer(_ bytes: [UInt8]) {
        guard let answer = try? UFRDiscoveryAnswer(bytes: bytes) else { return }
        fuzzCheck(answer.ports.map(\.uart) == [1, 2], "UARTs \(answer.ports)")
        fuzzCheck(answer.ports.allSatisfy { (1...65_535).contains($0.port) }, "ports \(answer.ports)")
        fuzzCheck(answer.address == Array(bytes.prefix(4)), "address \(answer.address)")
        if let serial = answer.serial {
            fuzzCheck(Array(serial.utf8) == Array(bytes.dropFirst(19).dropLast()), "serial \(serial)")
        }
    }
}
