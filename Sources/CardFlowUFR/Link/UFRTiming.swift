/// How long ``UFRConnection`` waits for a uFR reader. The protocol specifies no timeouts
/// (ufr.md §2.4): the vendor's serial example reads for 500 ms, pyuFR waits 2 s and more on
/// network links; these defaults sit between.
///
/// ```swift
/// var timing = UFRTiming()
/// timing.replyTimeout = .seconds(2)
/// ```
public struct UFRTiming: Sendable, Hashable {
    /// How long one command may take from sending its packet to its answer (the card's own
    /// time included for card commands) on a stream link, or on a datagram link for a command
    /// that is not sent twice.
    public var replyTimeout: Duration
    /// On a datagram link, how long to wait for the answer to a read-only command before
    /// sending it again.
    public var datagramAttemptTimeout: Duration
    /// On a datagram link, how many times a read-only command is sent at most.
    public var datagramAttempts: Int

    /// - Parameters:
    ///   - replyTimeout: the wait for one answer (default 1.5 s).
    ///   - datagramAttemptTimeout: the wait before a datagram is sent again (default 250 ms).
    ///   - datagramAttempts: the most times a read-only command is sent (default 4).
    public init(
        replyTimeout: Duration = .milliseconds(1500), datagramAttemptTimeout: Duration = .milliseconds(250),
        datagramAttempts: Int = 4
    ) {
        self.replyTimeout = replyTimeout
        self.datagramAttemptTimeout = datagramAttemptTimeout
        self.datagramAttempts = max(1, datagramAttempts)
    }
}
