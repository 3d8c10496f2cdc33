import CardFlowDaemon

/// `{"kind": "report"}`: identify the card (ATR, UID) and record it; nothing is written.
public struct ReportFlow: DaemonFlow, Hashable {
    public static let kind = "report"
    public static let writesToCard = false

    public init() {}

    public init(from decoder: any Decoder) throws {}

    public func encode(to encoder: any Encoder) throws {}

    public func job(_ context: DaemonFlowContext) async throws -> FlowJob {
        FlowJob(flow: DaemonFlowSteps.identify)
    }
}

extension FlowSpecification {
    /// Identify the card and record it (``ReportFlow``).
    public static var report: FlowSpecification { FlowSpecification(ReportFlow()) }
}
