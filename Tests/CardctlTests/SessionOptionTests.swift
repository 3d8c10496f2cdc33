import Foundation
import Testing

@Suite("cardctl session options")
struct SessionOptionTests {
    @Test("apdu --repeat 1000 at 200 ms latency, SIGINT after 1 s: exit 130 within 0.5 s")
    func repeatInterrupted() async throws {
        // 200 s of work: even a test process starved by a loaded machine interrupts it midway.
        let run = try CardctlProcess([
            "--reader", "sim:iso7816,latency=200", "apdu", "--repeat", "1000", Card.selectApplication,
        ])
        try await Task.sleep(for: .seconds(1))
        // At least one answer is out: the process is surely past its start-up.
        _ = await run.nextOutputLine(timeout: .seconds(10))
        run.interrupt()
        let result = try await run.waitForExit(timeout: .seconds(10))
        let outcome = try #require(run.interruptOutcome)
        #expect(outcome.wasRunning, "\(result)")
        #expect(result.status == 130, "\(result)")
        #expect(outcome.exitDelay <= .milliseconds(500), "exit took \(outcome.exitDelay) after SIGINT")
        #expect(result.stderr.contains("cancelled"), "\(result)")
        #expect(result.stdoutLines.count < 1000, "\(result)")
    }

    @Test func repeatSendsTheListNTimes() async throws {
        let result = try await CardctlProcess.run([
            "--reader", "sim:iso7816", "apdu", "--repeat", "3", Card.selectApplication, "00B0810002",
        ])
        #expect(result.status == 0, "\(result)")
        #expect(
            result.stdoutLines
                == Array(repeating: ["\(Card.applicationFCI) 9000", "0001 9000"], count: 3).flatMap { $0 }, "\(result)")
    }

    @Test("a card lifted mid-run comes back: the selection is replayed and the run completes")
    func liftedCardReturns() async throws {
        let result = try await CardctlProcess.run([
            "--reader", "sim:iso7816,lift-after=2,return-after=200", "--wait", "3000",
            "apdu", Card.selectApplication, "00B0810002", "00B0810002", "00B0810002",
        ])
        #expect(result.status == 0, "\(result)")
        #expect(
            result.stdoutLines == ["\(Card.applicationFCI) 9000", "0001 9000", "0001 9000", "0001 9000"], "\(result)")
        #expect(result.stderr.contains("card lost"), "\(result)")
        #expect(result.stderr.contains("resuming"), "\(result)")
    }

    @Test("another card coming back is reported and the run fails when its own card stays away")
    func swappedCard() async throws {
        let result = try await CardctlProcess.run([
            "--reader", "sim:iso7816,lift-after=2,return-after=100,swap", "--wait", "800",
            "apdu", Card.selectApplication, "00B0810002", "00B0810002",
        ])
        #expect(result.status == 1, "\(result)")
        #expect(result.stderr.contains("wrong card"), "\(result)")
        #expect(result.stderr.contains("did not come back"), "\(result)")
    }

    @Test func watchReportsCardEvents() async throws {
        let watch = try CardctlProcess(["watch", "--json", "--reader", "sim:iso7816,lift-after=0,return-after=300"])
        var lines: [String] = []
        for _ in 0..<3 {
            guard let line = await watch.nextOutputLine(timeout: .seconds(10)) else { break }
            lines.append(line)
        }
        watch.interrupt()
        let result = try await watch.waitForExit(timeout: .seconds(10))
        #expect(result.status == 130, "\(result)")
        let events = try lines.map { line in
            try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])["event"] as? String
        }
        #expect(events == ["readerAdded", "cardAbsent", "cardPresent"], "\(lines)")
    }

    @Test func sessionOptionsAreValidated() async throws {
        for arguments in [["--cooldown", "-1"], ["--retries", "-2"], ["--wait", "x"], ["--repeat", "0"]] {
            let result = try await CardctlProcess.run(
                ["--reader", "sim:iso7816", "apdu", Card.selectApplication] + arguments)
            #expect(result.status == 2, "\(result)")
        }
    }
}
