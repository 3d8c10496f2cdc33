import CardFlowPCSCLite
import Testing

/// An actor on a PCSCThreadExecutor runs on that thread, never on the cooperative pool (no pcscd needed).
@Suite struct PCSCThreadExecutorTests {
    actor Probe {
        nonisolated let executor = PCSCThreadExecutor(name: "pcsc-test")
        nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }
        private var calls = 0

        func visit() -> (onOwnThread: Bool, calls: Int) {
            calls += 1
            return (executor.isCurrentThread, calls)
        }

        deinit { executor.shutdown() }
    }

    @Test func isolatedCodeRunsOnTheOwnedThreadInOrder() async {
        let probe = Probe()
        for expected in 1...50 {
            let visit = await probe.visit()
            #expect(visit.onOwnThread)
            #expect(visit.calls == expected)
        }
        #expect(!probe.executor.isCurrentThread)
    }
}
