/// Whether a card side is connected to a ``VPCDListener``.
public enum VPCDCardPresence: Sendable, Hashable {
    /// A card side connected (each connection is a new card).
    case present
    /// No card side is connected.
    case absent
}
