import CardFlow
import CardFlowDaemon
import CardFlowStorageCards

/// `{"kind": "ndef-write", "uri": "…"}` or `"text": "…"`: write an NDEF message with one URI or
/// text record (Type 2, 3, 4 or 5 tags), and read it back.
public struct NDEFWriteFlow: DaemonFlow, Hashable {
    public static let kind = "ndef-write"
    public static let writesToCard = true
    public static let personalisesCard = true

    /// The record written.
    public var content: NDEFContent

    /// - Parameter content: the record written.
    public init(content: NDEFContent) {
        self.content = content
    }

    enum CodingKeys: String, CodingKey { case uri, text }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        if let uri = try container.decodeIfPresent(String.self, forKey: .uri) {
            content = .uri(uri)
        } else if let text = try container.decodeIfPresent(String.self, forKey: .text) {
            content = .text(text)
        } else {
            throw DecodingError.keyNotFound(
                CodingKeys.uri,
                .init(codingPath: container.codingPath, debugDescription: "ndef-write needs 'uri' or 'text'"))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        switch content {
        case .uri(let uri): try container.encode(uri, forKey: .uri)
        case .text(let text): try container.encode(text, forKey: .text)
        }
    }

    public func job(_ context: DaemonFlowContext) async throws -> FlowJob {
        let content = self.content
        let flow = DaemonFlowSteps.identify.then("ndef-write", idempotent: true) { outcome, session in
            let message = try content.message()
            let tag = try await StorageNDEFTag.detect(on: session)
            try await tag.writeMessageBytes(message)
            // Read back: a write the card acknowledged but did not keep is a failure, not a success.
            guard try await tag.readMessageBytes() == message else { throw DaemonFlowError.readBackMismatch }
            var outcome = outcome
            outcome.values["written"] = message.hexString
            return outcome
        }
        return FlowJob(flow: flow)
    }
}

extension FlowSpecification {
    /// Write an NDEF message with one record (``NDEFWriteFlow``).
    public static func ndefWrite(_ content: NDEFContent) -> FlowSpecification {
        FlowSpecification(NDEFWriteFlow(content: content))
    }
}
