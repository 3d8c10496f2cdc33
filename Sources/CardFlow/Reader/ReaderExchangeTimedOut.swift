/// A backend stopped an exchange because the time limit its caller gave
/// (``ReaderDriver/transmit(_:timeLimit:clock:)``) passed. The exchange was stopped as
/// cancellation stops it (the CCID driver aborts the command), so the reader is ready for the
/// next one. A ``CardSession`` reports it as ``SessionError/timedOut(what:after:)``.
public struct ReaderExchangeTimedOut: Error, Sendable, Hashable, CustomStringConvertible, CategorizedError {
    /// The limit that passed.
    public let limit: Duration

    public init(limit: Duration) {
        self.limit = limit
    }

    public var description: String { "the exchange did not end within \(limit)" }

    public var category: ErrorCategory { .reader }
}

extension ReaderDriver {
    public func transmit(_ command: consuming [UInt8], timeLimit: Duration, clock: any ElapsedClock) async throws
        -> [UInt8]
    {
        try await transmitRacingTimer(consume command, timeLimit: timeLimit, clock: clock)
    }

    /// ``transmit(_:timeLimit:clock:)`` for any backend: ``transmit(_:)`` in a child task raced
    /// against a timer on `clock`; when the timer wins, the exchange's task is cancelled (which
    /// stops the exchange, a rule every backend keeps) and awaited before
    /// ``ReaderExchangeTimedOut`` is thrown.
    public func transmitRacingTimer(_ command: consuming [UInt8], timeLimit: Duration, clock: any ElapsedClock)
        async throws -> [UInt8]
    {
        let command = command
        guard
            let answer = try await racingTimer(
                clock.now() + timeLimit, clock: clock, { try await self.transmit(command) })
        else { throw ReaderExchangeTimedOut(limit: timeLimit) }
        return answer
    }
}
