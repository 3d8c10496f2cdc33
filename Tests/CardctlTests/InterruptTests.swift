import Foundation
import Testing

@Suite("cardctl SIGINT")
struct InterruptTests {
    @Test("SIGINT during a long apdu run: exit 130 promptly, 'cancelled' on stderr")
    func interruptLongRun() async throws {
        // 10 × 100 APDUs at 200 ms each take 200 s or more, far longer than the wait below even
        // when a loaded machine starves this test process.
        let apdus = Array(repeating: Card.selectApplication, count: 100)
        let run = try CardctlProcess(["apdu", "--reader", "sim:iso7816,latency=200", "--repeat", "10"] + apdus)
        // Interrupt once the first answer is out: the process is surely past its start-up.
        _ = await run.nextOutputLine(timeout: .seconds(10))
        run.interrupt()
        let result = try await run.waitForExit(timeout: .seconds(15))
        let outcome = try #require(run.interruptOutcome, "SIGINT was never sent: \(result)")

        try #require(outcome.wasRunning, "cardctl finished before the signal; the work is not long enough: \(result)")
        #expect(result.status == 130, "\(result)")
        #expect(outcome.exitDelay <= .seconds(2), "exit took \(outcome.exitDelay) after SIGINT (typically ~10 ms)")
        #expect(result.stderr.contains("cancelled"), "\(result)")
        #expect(result.stdoutLines.count < apdus.count * 10, "the run should have stopped early: \(result)")
    }

    @Test("SIGINT while the shell waits for input: exit 130")
    func interruptIdleShell() async throws {
        let shell = try CardctlProcess(["--reader", "sim:iso7816", "shell"], interactiveInput: true)
        shell.send(Card.selectApplication + "\n")
        #expect(await shell.nextOutputLine() == Card.applicationFCI + "9000")
        shell.interrupt()
        let result = try await shell.waitForExit(timeout: .seconds(10))
        let outcome = try #require(shell.interruptOutcome)
        #expect(outcome.wasRunning, "\(result)")
        #expect(result.status == 130, "\(result)")
        #expect(outcome.exitDelay <= .seconds(2), "exit took \(outcome.exitDelay) after SIGINT (typically ~10 ms)")
        #expect(result.stderr.contains("cancelled"), "\(result)")
    }
}
