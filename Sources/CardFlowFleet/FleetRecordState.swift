/// Where a personalisation record is in its life.
///
/// `pending` → `claimed` (a host holds it under a lease) → `done` or `failed`; an expired lease
/// makes a `claimed` record claimable again; `fleet retry` puts `failed` records back to
/// `pending`, `fleet void` takes `pending` or `failed` ones out of the batch.
public enum FleetRecordState: String, Sendable, Hashable, Codable, CaseIterable {
    case pending, claimed, done, failed, void
}

/// How a host ended its claim; the outbox carries it until the store took it.
public enum FleetCompletionState: String, Sendable, Hashable, Codable {
    case done, failed
}

/// What the store did with a completion.
public enum FleetCompletionOutcome: String, Sendable, Hashable, Codable {
    /// Recorded now.
    case applied
    /// The same completion (same token, same state) was recorded before: a retry from the outbox.
    case alreadyApplied
    /// The claim token no longer matches (the lease expired and another host claimed the record,
    /// or an operator retried or voided it): the write was refused.
    case fenced
}
