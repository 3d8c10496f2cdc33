import Foundation
import Testing

/// `cardctl bench` as users run it, against simulated readers.
@Suite("cardctl bench")
struct BenchCommandTests {
    static func document(_ result: CardctlResult) throws -> [String: Any] {
        let object = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8))
        return try #require(object as? [String: Any], "\(result)")
    }

    static func runs(_ result: CardctlResult) throws -> [[String: Any]] {
        try #require(try document(result)["runs"] as? [[String: Any]], "\(result)")
    }

    @Test("sweep --json on a virtual-time reader gives the model's costs back within 5 %")
    func sweepRecoversModel() async throws {
        let result = try await CardctlProcess.run([
            "--reader", "sim:apdu-test,usb=2,firmware=0.5,cmd-byte=15,resp-byte=25,clock=virtual", "bench", "sweep",
            "--json", "--step", "32", "--samples", "3",
        ])
        #expect(result.status == 0, "\(result)")
        let run = try #require(try Self.runs(result).first)
        #expect(run["clock"] as? String == "virtual")
        let sweep = try #require(run["sweep"] as? [String: Any])
        let fit = try #require(sweep["fit"] as? [String: Any])
        let perCommand = try #require(fit["perCommandByteNs"] as? Double)
        let perResponse = try #require(fit["perResponseByteNs"] as? Double)
        let fixed = try #require(fit["fixedNs"] as? Double)
        #expect(abs(perCommand - 15_000) <= 750, "\(fit)")
        #expect(abs(perResponse - 25_000) <= 1_250, "\(fit)")
        // 2 ms + 0.5 ms + a 5-byte command and a 2-byte answer.
        let expectedFixed: Double = 2_500_000 + 5 * 15_000 + 2 * 25_000
        #expect(abs(fixed - expectedFixed) <= expectedFixed * 0.05, "\(fit)")
        #expect((sweep["points"] as? [Any])?.count ?? 0 >= 16)
    }

    @Test("latency --json: ordered percentiles, the reader's identity, a histogram, the method")
    func latencyJSON() async throws {
        let result = try await CardctlProcess.run([
            "--reader", "sim:iso7816", "bench", "latency", "--json", "--count", "300", "--warmup", "10",
            "--min-duration", "0",
        ])
        #expect(result.status == 0, "\(result)")
        let document = try Self.document(result)
        #expect(document["schema"] as? String == "cardflow-bench/1")
        #expect((document["machine"] as? [String: Any])?["processorCount"] as? Int ?? 0 >= 1)
        let run = try #require(try Self.runs(result).first)
        let reader = try #require(run["reader"] as? [String: Any])
        #expect(reader["backend"] as? String == "sim")
        #expect(reader["usbID"] as? String != nil)
        #expect(reader["exchangeLevel"] as? String != nil)
        #expect((run["method"] as? String)?.contains("closed loop") == true)
        let latency = try #require(run["latency"] as? [String: Any])
        #expect(latency["statusWord"] as? String == "9000")
        let statistics = try #require(latency["statistics"] as? [String: Any])
        let values = ["minNs", "p50Ns", "p90Ns", "p99Ns", "p999Ns", "maxNs"].compactMap { statistics[$0] as? Int }
        #expect(values.count == 6)
        #expect(values == values.sorted() && values[0] > 0, "\(statistics)")
        #expect(statistics["count"] as? Int ?? 0 >= 300)
        let histogram = try #require(latency["histogram"] as? [[String: Any]])
        #expect(histogram.reduce(0) { $0 + ($1["count"] as? Int ?? 0) } == statistics["count"] as? Int)
    }

    @Test("--readers A,B --parallel measures both readers (sim options' commas stay with their selector)")
    func twoReaders() async throws {
        let result = try await CardctlProcess.run([
            "bench", "latency", "--readers", "sim:iso7816,seed=3,sim:apdu-test,usb=1,clock=virtual", "--parallel",
            "--json", "--count", "50", "--warmup", "2", "--min-duration", "0",
        ])
        #expect(result.status == 0, "\(result)")
        let runs = try Self.runs(result)
        #expect(runs.count == 2)
        #expect(Set(runs.compactMap { $0["clock"] as? String }) == ["monotonic", "virtual"])
    }

    @Test("compare of two simulated readers: both sides, and the slower one is the second by its modelled time")
    func compareSimulated() async throws {
        let result = try await CardctlProcess.run([
            "--reader", "sim:iso7816,usb=1,clock=virtual", "bench", "compare", "--against",
            "sim:iso7816,usb=3,clock=virtual", "--json", "--count", "100", "--warmup", "5", "--min-duration", "0",
        ])
        #expect(result.status == 0, "\(result)")
        let run = try #require(try Self.runs(result).first)
        let comparison = try #require(run["comparison"] as? [String: Any])
        #expect((comparison["sides"] as? [Any])?.count == 2)
        // 3 ms against 1 ms on virtual time: exactly 3.
        let ratio = try #require(comparison["p50Ratio"] as? Double)
        #expect(abs(ratio - 3) < 0.01, "\(comparison)")
    }

    @Test("SIGINT during a long latency run: exit 130, and the JSON and the report hold what was measured")
    func interruptKeepsResults() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { Fixtures.removeDirectory(directory) }
        let report = directory.appendingPathComponent("latency.html").path
        let run = try CardctlProcess([
            "--reader", "sim:iso7816,latency=2", "--trace", "bench", "latency", "--json", "--count", "1000000",
            "--warmup", "5", "--report", report,
        ])
        // SIGINT once round trips are being measured, as the trace's answers on stderr tell (5 of
        // warm-up, then measured ones), not after a fixed 2 s: a loaded machine can take longer than
        // that to start cardctl, and a signal before the first sample leaves nothing to keep.
        var answers = 0
        while answers < 20, let line = await run.nextErrorLine(timeout: .seconds(60)) {
            if line.hasPrefix("SW1-SW2") { answers += 1 }
        }
        #expect(answers == 20, "cardctl traced \(answers) answers")
        run.interrupt()
        let result = try await run.waitForExit(timeout: .seconds(20))
        #expect(result.status == 130, "\(result)")
        let measured = try #require(try Self.runs(result).first)
        #expect(measured["interrupted"] as? Bool == true)
        let statistics = (measured["latency"] as? [String: Any])?["statistics"] as? [String: Any]
        #expect(statistics?["count"] as? Int ?? 0 > 0, "\(result)")
        #expect(FileManager.default.fileExists(atPath: report))
    }

    @Test("ops on the simulated DESFire card: rows with APDU counts; writes only with --allow-write")
    func operations() async throws {
        let readOnly = try await CardctlProcess.run([
            "--reader", "sim:desfire", "bench", "ops", "--json", "--iterations", "3",
        ])
        #expect(readOnly.status == 0, "\(readOnly)")
        let operations = try #require(try Self.runs(readOnly).first?["operations"] as? [String: Any])
        #expect(operations["family"] as? String == "desfire")
        let rows = try #require(operations["operations"] as? [[String: Any]])
        #expect(
            rows.contains { $0["name"] as? String == "get application IDs" && $0["apdusPerOperation"] as? Double == 1 })
        #expect(rows.allSatisfy { $0["writes"] as? Bool == false })
        let skipped = try #require(operations["skipped"] as? [[String: Any]])
        #expect(skipped.contains { ($0["reason"] as? String)?.contains("--allow-write") == true })

        let writing = try await CardctlProcess.run([
            "--reader", "sim:desfire", "bench", "ops", "--json", "--iterations", "3", "--allow-write",
        ])
        #expect(writing.status == 0, "\(writing)")
        let written = try #require(try Self.runs(writing).first?["operations"] as? [String: Any])
        let modes = (written["operations"] as? [[String: Any]] ?? []).compactMap { $0["commMode"] as? String }
        #expect(Set(modes) == ["plain", "mac", "full"])
    }

    @Test("text output: a summary with percentiles and a text histogram")
    func textOutput() async throws {
        let result = try await CardctlProcess.run([
            "--reader", "sim:iso7816", "bench", "latency", "--count", "200", "--warmup", "5", "--min-duration", "0",
        ])
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout.contains("p99"), "\(result)")
        #expect(result.stdout.contains("CardFlow Virtual Reader"), "\(result)")
        #expect(result.stdoutLines.count >= 10, "\(result)")
    }

    @Test(
        "bad input is refused with exit 2 and a reason",
        arguments: [
            (["bench", "latency", "--apdu", "zz"], "--apdu"),
            (["bench", "latency", "--report", "out.txt"], ".html"),
            (["bench", "sweep", "--step", "0"], "--step"),
            (["bench", "sweep", "--file", "12"], "--file"),
            (["bench", "sweep", "--allow-write"], "--file"),
            (["bench", "ops", "--family", "felica"], "--family"),
            (["bench", "ops", "--blocks", "3-1"], "--blocks"),
            (["bench", "latency", "--parallel"], "--readers"),
            (["bench", "compare", "--start-pcscd", "--against", "sim"], "--against"),
        ])
    func badInput(arguments: [String], mention: String) async throws {
        let result = try await CardctlProcess.run(["--reader", "sim:iso7816"] + arguments)
        #expect(result.status == 2, "\(result)")
        #expect(result.stderr.contains(mention), "\(result)")
    }
}
