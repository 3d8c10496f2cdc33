import CardFlowDaemon
import CardFlowDaemonFlows
import Foundation
import NIOCore
import NIOEmbedded

@testable import CardFlowDaemonControl
#if canImport(FuzzSupport)
import FuzzSupport
#endif

/// The control socket: the byte stream split into bounded lines, each line parsed as the
/// request handler does (one JSON object; a `flow` field as a flow specification).
enum ControlFuzzing {
    /// Input: the line limit, then chunks (a length byte and that many bytes) as reads deliver them.
    static func lines(_ bytes: [UInt8]) {
        var input = FuzzInput(bytes)
        let limit = Int(input.byte()) + 1
        let channel = EmbeddedChannel(handler: ByteToMessageHandler(ControlLineDecoder(maximumLength: limit)))
        var sent: [UInt8] = []
        var lines: [ControlLine] = []
        do {
            while !input.isEmpty {
                let chunk = input.take(Int(input.byte()))
                sent += chunk
                try channel.writeInbound(ByteBuffer(bytes: chunk))
                while let line = try channel.readInbound(as: ControlLine.self) { lines.append(line) }
            }
            _ = try channel.finish()
            while let line = try channel.readInbound(as: ControlLine.self) { lines.append(line) }
        } catch {
            fuzzCheck(false, "the line decoder threw \(error)")
        }
        let newlines = sent.count { $0 == UInt8(ascii: "\n") }
        let tail = sent.reversed().prefix { $0 != UInt8(ascii: "\n") }.count
        // An unterminated last line counts; when it is over the limit the decoder has already
        // dropped its bytes and (today) reports nothing for it.
        let expected = newlines + (tail > 0 ? 1 : 0)
        fuzzCheck(
            lines.count == expected || (tail > limit && lines.count == newlines),
            "\(lines.count) lines from \(newlines) newlines and a \(tail)-byte tail")
        for line in lines {
            guard case .line(let text) = line else { continue }
            fuzzCheck(!text.contains("\n"), "a line holds a newline")
            if text.utf8.allSatisfy({ $0 < 0x80 }) {
                fuzzCheck(text.utf8.count <= limit, "a line of \(text.utf8.count) bytes passed a limit of \(limit)")
            }
            request(text)
        }
    }

    /// What ``ControlRequestHandler`` does with a line before acting on it.
    static func request(_ text: String) {
        guard let request = try? JSONDecoder().decode(JSONValue.self, from: Data(text.utf8)) else { return }
        let again = try? JSONDecoder().decode(JSONValue.self, from: Data(request.jsonLine().utf8))
        fuzzCheck(again == request, "JSONValue does not survive its own JSON line")
        guard let flow = request["flow"], let data = try? JSONEncoder().encode(flow),
            let specification = try? DaemonFlowKinds.standard.decoder().decode(FlowSpecification.self, from: data)
        else { return }
        let reencoded = try? DaemonFlowKinds.standard.decoder().decode(
            FlowSpecification.self, from: JSONEncoder().encode(specification))
        fuzzCheck(reencoded == specification, "FlowSpecification does not survive encode/decode")
    }
}
