@_spi(CardFlowInternals) import CardFlow

// Waiting for data with a deadline on the injected clock, and waking waiters.
extension VirtualCCIDReader {
    // MARK: - Waiting

    func waitForData(_ channel: Channel, until deadline: Duration) async {
        await suspendUntilWoken(tag: channel, until: deadline, clock: clock)
    }

    func wake(_ channel: Channel) {
        deadlineWaiters.wake { $0 == channel }
    }

    func wakeAll() {
        deadlineWaiters.wakeAll()
    }
}
