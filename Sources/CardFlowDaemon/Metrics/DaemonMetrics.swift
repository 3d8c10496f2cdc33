import CardFlowDaemonControl
import CardFlowFleet
import CoreMetrics
import Metrics
import Prometheus

/// The daemon's own metrics (jobs, cards, readers, job-log failures); the readers add APDU
/// counters, bytes and status words through the same factory. ``exposition()`` renders the
/// Prometheus text format the control socket's `metrics` request and `--metrics-port` serve.
public struct DaemonMetrics: Sendable {
    public let registry: PrometheusCollectorRegistry
    public let factory: any MetricsFactory

    /// A registry of its own (tests), or the one the process bootstrapped `MetricsSystem` with.
    public init(registry: PrometheusCollectorRegistry = PrometheusCollectorRegistry()) {
        self.registry = registry
        self.factory = PrometheusMetricsFactory(registry: registry)
    }

    func jobFinished(flow: String, state: JobState, duration: Duration) {
        Counter(label: "cardd_jobs_total", dimensions: [("flow", flow), ("state", state.rawValue)], factory: factory)
            .increment()
        Timer(label: "cardd_flow_duration_seconds", dimensions: [("flow", flow)], factory: factory)
            .recordNanoseconds(duration.nanoseconds)
    }

    func cardSeen(reader: String) {
        Counter(label: "cardd_cards_seen_total", dimensions: [("reader", reader)], factory: factory).increment()
    }

    func readers(_ count: Int) {
        Gauge(label: "cardd_readers", factory: factory).record(count)
    }

    func jobLogFailure() {
        Counter(label: "cardd_job_log_failures_total", factory: factory).increment()
    }

    func controlRequest(_ operation: ControlOperationLabel, ok: Bool) {
        Counter(
            label: "cardd_control_requests_total",
            dimensions: [("op", operation.rawValue), ("ok", ok ? "true" : "false")],
            factory: factory
        ).increment()
    }

    func fleetClaim() {
        Counter(label: "cardd_fleet_claims_total", factory: factory).increment()
    }

    func fleetCompletion(_ state: FleetCompletionState) {
        Counter(label: "cardd_fleet_completions_total", dimensions: [("state", state.rawValue)], factory: factory)
            .increment()
    }

    func fleetFencedWrite() {
        Counter(label: "cardd_fleet_fenced_writes_total", factory: factory).increment()
    }

    func fleetLeaseLost() {
        Counter(label: "cardd_fleet_lease_losses_total", factory: factory).increment()
    }

    func fleetOutboxDepth(_ depth: Int) {
        Gauge(label: "cardd_fleet_outbox_depth", factory: factory).record(depth)
    }

    /// How long the oldest completion has waited in the outbox (0 when none waits).
    func fleetOutboxAge(seconds: Double) {
        Gauge(label: "cardd_fleet_outbox_age_seconds", factory: factory).record(seconds)
    }

    /// A claim's round trip to the store, whatever it answered (the flow's duration starts after it).
    func fleetClaimDuration(_ duration: Duration) {
        Timer(label: "cardd_fleet_claim_duration_seconds", factory: factory).recordNanoseconds(duration.nanoseconds)
    }

    /// A completion's round trip to the store (delivered ones: applied, already applied or fenced).
    func fleetCompletionDuration(_ duration: Duration) {
        Timer(label: "cardd_fleet_completion_duration_seconds", factory: factory)
            .recordNanoseconds(duration.nanoseconds)
    }

    /// A claim given back untouched (answered too late, or its job ended before the first step).
    func fleetClaimReleased() {
        Counter(label: "cardd_fleet_claims_released_total", factory: factory).increment()
    }

    /// Prometheus text exposition of everything in the registry.
    public func exposition() -> String {
        registry.emitToString()
    }
}

extension Duration {
    var nanoseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }
}
