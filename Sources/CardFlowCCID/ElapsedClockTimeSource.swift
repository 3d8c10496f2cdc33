import CardFlow
import CardFlowCCIDProtocol

/// Any ``/CardFlow/ElapsedClock`` as the time source a ``/CardFlowCCIDProtocol/CCIDDriver`` holds its operations to
/// ``/CardFlowCCIDProtocol/CCIDDriverConfiguration/exchangeTimeLimit`` with: pass the ``/CardFlow/ManualClock`` a test drives to
/// the driver as well, and a reader's endless time extensions run out without real waiting.
///
/// ```swift
/// let clock = ManualClock()
/// let driver = CCIDDriver(transport: transport, descriptor: descriptor,
///                         timeSource: ElapsedClockTimeSource(clock))
/// ```
public struct ElapsedClockTimeSource: CCIDTimeSource {
    public let clock: any ElapsedClock

    public init(_ clock: any ElapsedClock) {
        self.clock = clock
    }

    public func now() -> Duration { clock.now() }

    public func suspend(until deadline: Duration) async throws { try await clock.suspend(until: deadline) }

    public var measuresRealTime: Bool { clock.measuresRealTime }
}
