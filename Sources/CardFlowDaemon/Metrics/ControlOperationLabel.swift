/// The `op` label of `cardd_control_requests_total`: one of a fixed set, so that a client
/// sending made-up operations cannot grow the metrics registry (every label value is a series
/// kept for the life of the process).
enum ControlOperationLabel: String, Sendable, CaseIterable {
    case ping, readers, events, apdu, flow, watch, cancel, jobs, job, metrics
    /// The request had no `op`.
    case missing
    /// An `op` the daemon does not know.
    case unknown
    case tooLong
    case tooDeep
    case badJSON
    case tooManyConnections
    case busy

    /// The label for a request's `op` text.
    init(_ operation: String) {
        if operation.isEmpty {
            self = .missing
        } else if let known = ControlOperationLabel(rawValue: operation),
            ![.missing, .unknown, .tooLong, .tooDeep, .badJSON, .tooManyConnections, .busy].contains(known)
        {
            self = known
        } else {
            self = .unknown
        }
    }
}
