import CardFlowAsyncAdmission
import Testing

/// An actor's exclusive section through FIFOAdmission.wait: arrival order, and a waiter
/// cancelled in the queue leaves it without taking anyone's turn.
@Suite("FIFO admission")
struct FIFOAdmissionTests {
    actor Section {
        private var admission = FIFOAdmission()
        private(set) var order: [Int] = []
        private var release: CheckedContinuation<Void, Never>?

        var waiting: Int { admission.waitingCount }

        /// Enters, records `number`, and (for the first holder) stays inside until ``open()``.
        func run(_ number: Int, hold: Bool = false) async throws {
            if let ticket = admission.tryEnter() {
                try await FIFOAdmission.wait(
                    enqueue: { admission.enqueue(ticket, $0) }, cancel: { await self.withdraw(ticket) })
            }
            defer { admission.leave() }
            order.append(number)
            if hold { await withCheckedContinuation { release = $0 } }
        }

        func open() {
            release?.resume()
            release = nil
        }

        var isHeld: Bool { release != nil }

        private func withdraw(_ ticket: UInt64) { admission.cancel(ticket) }
    }

    /// Polls an actor condition without a wall-clock bound (the test's time limit ends a hang).
    static func until(_ condition: () async -> Bool) async {
        while await !condition() { await Task.yield() }
    }

    @Test(.timeLimit(.minutes(1)))
    func waitersEnterInArrivalOrderAndACancelledOneIsSkipped() async throws {
        let section = Section()
        let holder = Task { try await section.run(0, hold: true) }
        await Self.until { await section.isHeld }
        let first = Task { try await section.run(1) }
        await Self.until { await section.waiting == 1 }
        let cancelled = Task { try await section.run(2) }
        await Self.until { await section.waiting == 2 }
        let third = Task { try await section.run(3) }
        await Self.until { await section.waiting == 3 }

        cancelled.cancel()
        await #expect(throws: CancellationError.self) { try await cancelled.value }
        #expect(await section.waiting == 2)

        await section.open()
        try await holder.value
        try await first.value
        try await third.value
        #expect(await section.order == [0, 1, 3])
    }

    @Test func aTaskCancelledBeforeItWaitsDoesNotQueue() async throws {
        let section = Section()
        let holder = Task { try await section.run(0, hold: true) }
        await Self.until { await section.isHeld }
        let late = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            try await section.run(1)
        }
        await #expect(throws: CancellationError.self) { try await late.value }
        #expect(await section.waiting == 0)
        await section.open()
        try await holder.value
        #expect(await section.order == [0])
    }
}
