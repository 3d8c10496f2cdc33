import CardFlowFleet

/// Which server of a multi-server address takes the store's operations: the one that last
/// answered as the primary.
///
/// A store with one server never asks. With several, the selector asks every server
/// (`SELECT pg_is_in_recovery()`, all at once) before the first operation and again after an
/// operation failed on the chosen one in a way a failover explains (unreachable, timed out,
/// read-only, shutting down); operations wait for that one probe and then go to the first server,
/// in the address's order, that answered "not in recovery". When none does (the primary is gone
/// and no standby is promoted yet) operations fail at once as unreachable, and the servers are
/// asked again at most once per ``retryInterval``: the callers' own retry pacing (the daemon's
/// poll, its outbox) decides how often to come back, not a busy loop here.
actor FleetPrimarySelector {
    /// What one probe found out about one server.
    enum Role: Sendable, Equatable {
        case primary
        case standby
        case unreachable(String)
    }

    let count: Int
    let retryInterval: Duration
    private let probe: @Sendable (Int) async -> Role
    private let now: @Sendable () -> ContinuousClock.Instant
    private var chosen: Int
    /// False until a probe confirms ``chosen``, and again after a failure on it.
    private var confirmed: Bool
    private var probing: Task<[Role], Never>?
    private var lastFruitlessProbe: ContinuousClock.Instant?
    private(set) var lastRoles: [Role] = []

    /// - Parameters:
    ///   - count: the number of servers.
    ///   - probe: asks server `index` for its role, bounded in time by the caller.
    init(
        count: Int, retryInterval: Duration = .milliseconds(250),
        now: @escaping @Sendable () -> ContinuousClock.Instant = { ContinuousClock.now },
        probe: @escaping @Sendable (Int) async -> Role
    ) {
        self.count = count
        self.retryInterval = retryInterval
        self.now = now
        self.probe = probe
        chosen = 0
        confirmed = count == 1
    }

    /// The server for the next operation; throws when no server answers as the primary.
    func serverForOperation(_ operation: String) async throws(FleetStoreError) -> Int {
        if confirmed { return chosen }
        if let last = lastFruitlessProbe, probing == nil, last.duration(to: now()) < retryInterval {
            throw noPrimary(operation)
        }
        let task: Task<[Role], Never>
        if let probing {
            task = probing
        } else {
            let probe = self.probe
            let count = self.count
            task = Task {
                await withTaskGroup(of: (Int, Role).self) { group in
                    for index in 0..<count { group.addTask { (index, await probe(index)) } }
                    var roles = [Role](repeating: .unreachable("not asked"), count: count)
                    for await (index, role) in group { roles[index] = role }
                    return roles
                }
            }
            probing = task
        }
        let roles = await task.value
        if probing == task {
            probing = nil
            lastRoles = roles
            if let primary = roles.firstIndex(of: .primary) {
                chosen = primary
                confirmed = true
                lastFruitlessProbe = nil
            } else {
                lastFruitlessProbe = now()
            }
        }
        guard confirmed else { throw noPrimary(operation) }
        return chosen
    }

    /// An operation on `server` failed with `error`: when a failover explains it and `server`
    /// is still the chosen one, the next operation asks the servers again.
    func operationFailed(on server: Int, with error: FleetStoreError) {
        guard count > 1, server == chosen, Self.suggestsFailover(error) else { return }
        confirmed = false
    }

    /// Errors a primary that stopped, or a standby taken for one, produce.
    static func suggestsFailover(_ error: FleetStoreError) -> Bool {
        switch error {
        case .unreachable, .timedOut: return true
        // read_only_sql_transaction (a standby), admin_shutdown, crash_shutdown,
        // cannot_connect_now (starting up or in recovery); class 08: connection exceptions.
        case .server(_, let sqlState, _):
            return ["25006", "57P01", "57P02", "57P03"].contains(sqlState) || sqlState.hasPrefix("08")
        default: return false
        }
    }

    private func noPrimary(_ operation: String) -> FleetStoreError {
        let found = lastRoles.enumerated().map { index, role in
            switch role {
            case .primary: "server \(index + 1): primary"
            case .standby: "server \(index + 1): standby"
            case .unreachable(let reason): "server \(index + 1): \(reason)"
            }
        }
        return .unreachable(
            operation: operation,
            reason: "none of the \(count) servers answers as the primary (\(found.joined(separator: "; ")))")
    }
}
