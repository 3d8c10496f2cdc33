import CardFlowDaemon
import CardFlowDaemonFlows
import CardFlowFleet
import CardFlowFleetPostgres
import CardFlowPostgresTestSupport
import Logging

/// A cardd host of the fleet whose store calls are counted (``RecordingQueue``).
func recordingHost(
    _ name: String, server: ThrowawayPostgres, lease: Int, calls: QueueCalls,
    claimReply: @escaping @Sendable (Int, FleetClaimResult) async -> Void = { _, _ in },
    beforeWriting: @escaping @Sendable () async -> Void = {}
) throws -> (DaemonConfiguration, FleetMembership) {
    var logger = Logger(label: "fleet.\(name)")
    logger.logLevel = .warning
    // As cardd makes its store: the pool holds its connections.
    let store = FleetStore(
        address: try FleetDatabaseAddress(server.url), operationTimeout: .seconds(5), keepsConnections: true,
        logger: logger)
    let settings = FleetSettings(postgres: server.url, batch: "b", leaseSeconds: lease, hostName: name, pollSeconds: 1)
    let configuration = DaemonConfiguration(
        readers: [],
        rules: [
            CardRule(
                name: "badges",
                flow: .fleet(try FleetFlowTemplate(parameters: ["kind": "ndef-write"], kinds: .standard)))
        ], fleet: settings)
    let queue = RecordingQueue(store: store, calls: calls, claimReply: claimReply, beforeWriting: beforeWriting)
    return (configuration, FleetMembership(settings: settings, queue: queue))
}
