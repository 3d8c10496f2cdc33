import CardFlowDaemon

extension DaemonFlowKinds {
    /// The package's flow kinds, one entry each (a new kind is its file and one line here):
    /// what cardd runs. `fleet` is added by ``/CardFlowDaemon/DaemonFlowKinds/init(_:)``.
    public static let standard = DaemonFlowKinds([
        DaemonFlowKind(ReportFlow.self),
        DaemonFlowKind(APDUFlow.self),
        DaemonFlowKind(NDEFWriteFlow.self),
        DaemonFlowKind(NDEFReadFlow.self),
        DaemonFlowKind(ISO15693ReadFlow.self),
        DaemonFlowKind(ISO15693WriteFlow.self),
        DaemonFlowKind(DESFireProvisioningRule.self),
        DaemonFlowKind(NTAG424SUNRule.self),
        DaemonFlowKind(ClassicValueRule.self),
        DaemonFlowKind(NTAGNDEFRule.self),
        DaemonFlowKind(TONActivationRule.self),
        DaemonFlowKind(RelayRule.self),
    ])
}
