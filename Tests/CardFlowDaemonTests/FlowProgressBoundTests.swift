import CardFlow
import CardFlowSimulator
import Testing

/// A flow's progress stream holds bounded memory when nobody reads it, and still ends with the
/// flow's final event; the result stays reachable through `value`.
@Suite("flow progress bounds")
struct FlowProgressBoundTests {
    @Test func aStepReportingWithoutEndKeepsBoundedProgressAndItsResult() async throws {
        let virtual = VirtualCCIDReader(configuration: .level(.extendedAPDU))
        await virtual.insert(ISO7816Card(seed: 1))
        let reader = Reader.simulated(virtual)
        let reports = 200_000
        let flow = Flow.start("chatty") { session in
            for index in 0..<reports { await session.reportProgress(Double(index) / Double(reports)) }
            return 42
        }
        let run = reader.run(flow, policy: SessionPolicy())
        // Nobody reads the progress while the flow runs.
        #expect(try await run.value == 42)
        var count = 0
        var last: FlowEvent?
        for await event in run.progress {
            count += 1
            last = event
        }
        #expect(count <= FlowRun<Int>.progressBufferSize, "\(count) events buffered")
        #expect(last == .completed)
    }
}
