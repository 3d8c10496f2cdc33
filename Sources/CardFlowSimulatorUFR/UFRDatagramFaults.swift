/// Network faults the simulated Online injects on its UDP port, counted in datagrams: each
/// count is used up as datagrams pass.
public struct UFRDatagramFaults: Sendable, Hashable {
    /// Incoming datagrams to drop (the host's command is lost).
    public var dropIncoming = 0
    /// Answer datagrams to drop (the reader ran the command; its answer is lost).
    public var dropOutgoing = 0
    /// Answer datagrams to send twice.
    public var duplicateOutgoing = 0
    /// Answer datagrams to hold back and send after the next answer (reordering).
    public var delayOutgoing = 0

    /// No faults.
    public init() {}
}
