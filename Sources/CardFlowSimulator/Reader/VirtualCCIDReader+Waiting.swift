import CardFlow
import CardFlowCCID
import CardFlowCCIDProtocol
import Logging

// Waiting for data with a deadline on the injected clock, and waking waiters.
extension VirtualCCIDReader {
    // MARK: - Waiting

    func waitForData(_ channel: Channel, until deadline: Duration) async {
        let id = nextWaiterID
        nextWaiterID &+= 1
        let clock = self.clock
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                if Task.isCancelled {
                    continuation.resume()
                    return
                }
                let timer = Task {
                    try? await clock.suspend(until: deadline)
                    self.expire(id)
                }
                waiters[id] = (channel, continuation, timer)
            }
        } onCancel: {
            Task { await self.expire(id) }
        }
    }

    func expire(_ id: UInt64) {
        guard let waiter = waiters.removeValue(forKey: id) else { return }
        waiter.timer?.cancel()
        waiter.continuation.resume()
    }

    func wake(_ channel: Channel) {
        for (id, waiter) in waiters where waiter.channel == channel {
            waiters[id] = nil
            waiter.timer?.cancel()
            waiter.continuation.resume()
        }
    }

    func wakeAll() {
        for (_, waiter) in waiters {
            waiter.timer?.cancel()
            waiter.continuation.resume()
        }
        waiters.removeAll()
    }
}
