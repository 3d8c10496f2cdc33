import CardFlow
import CardFlowDaemon
import CardFlowStorageCards

/// `{"kind": "ndef-read"}`: read the tag's NDEF message (Type 2, 3, 4 or 5 tags).
public struct NDEFReadFlow: DaemonFlow, Hashable {
    public static let kind = "ndef-read"
    public static let writesToCard = false

    public init() {}

    public init(from decoder: any Decoder) throws {}

    public func encode(to encoder: any Encoder) throws {}

    public func job(_ context: DaemonFlowContext) async throws -> FlowJob {
        let flow = DaemonFlowSteps.identify.then("ndef-read") { outcome, session in
            let tag = try await StorageNDEFTag.detect(on: session)
            var outcome = outcome
            outcome.values["message"] = try await tag.readMessageBytes().hexString
            return outcome
        }
        return FlowJob(flow: flow)
    }
}

extension FlowSpecification {
    /// Read the NDEF message (``NDEFReadFlow``).
    public static var ndefRead: FlowSpecification { FlowSpecification(NDEFReadFlow()) }
}
