import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The cardd binary as operators run it: signals, restarts, and its job log read back through
/// `cardctl jobs` over the control socket.
@Suite("cardd process", .serialized)
struct CarddProcessTests {
    /// A reader whose card answers slowly and a rule with many APDUs: a job that runs for seconds.
    static func slowConfiguration(folder: String) throws -> String {
        let apdus = Array(repeating: "\"00A4040007A0000002471001\"", count: 400).joined(separator: ",")
        let text = """
            {"readers": ["sim:iso7816,latency=100"], "rules": [
              {"name": "slow", "flow": {"kind": "apdu", "apdus": [\(apdus)]}}]}
            """
        let path = folder + "/cardd.json"
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    static func folder() throws -> String {
        let path = "/tmp/cardd-proc-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    static func jobs(socket: String) async throws -> [[String: Any]] {
        let result = try await CardctlProcess.run(["jobs", "--json", "--socket", socket])
        guard result.status == 0 else { return [] }
        return (try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: Any]]) ?? []
    }

    /// Polls `cardctl jobs` until a job satisfies `condition` (30 s at most: the whole suite runs
    /// in parallel on two cores, and each poll starts a process).
    static func waitForJob(socket: String, _ condition: ([String: Any]) -> Bool) async throws -> [String: Any] {
        let deadline = ContinuousClock.now + .seconds(30)
        while ContinuousClock.now < deadline {
            if let job = try await jobs(socket: socket).first(where: condition) { return job }
            try await Task.sleep(for: .milliseconds(100))
        }
        throw CardctlHarnessError(description: "no job matched within 30 s")
    }

    /// Starts cardd with only an empty simulated reader on the same job log, to read it back.
    static func restartedJobs(folder: String) async throws -> [[String: Any]] {
        // A killed daemon leaves its socket file behind: without this, the wait below would
        // return before the new daemon listens.
        unlink(folder + "/cardd.sock")
        let config = folder + "/empty.json"
        try Data(#"{"readers": ["sim:none"], "rules": []}"#.utf8).write(to: URL(fileURLWithPath: config))
        let daemon = try CardctlProcess(
            ["--config", config, "--socket", folder + "/cardd.sock", "--job-log", folder + "/jobs.sqlite"],
            executable: "cardd")
        defer { daemon.send(signal: SIGTERM) }
        _ = try await waitForSocket(folder + "/cardd.sock", daemon: daemon)
        let jobs = try await jobs(socket: folder + "/cardd.sock")
        daemon.send(signal: SIGTERM)
        let result = try await daemon.waitForExit(timeout: .seconds(10))
        #expect(result.status == 0, "\(result)")
        return jobs
    }

    static func waitForSocket(_ path: String, daemon: CardctlProcess) async throws -> Bool {
        let deadline = ContinuousClock.now + .seconds(30)
        while ContinuousClock.now < deadline {
            if FileManager.default.fileExists(atPath: path) { return true }
            if !daemon.isRunning {
                let result = try await daemon.waitForExit(timeout: .seconds(5))
                throw CardctlHarnessError(description: "cardd ended before opening \(path):\n\(result)")
            }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw CardctlHarnessError(description: "cardd did not open \(path) within 30 s")
    }

    static func start(folder: String) throws -> CardctlProcess {
        try CardctlProcess(
            [
                "--config", try slowConfiguration(folder: folder), "--socket", folder + "/cardd.sock",
                "--job-log", folder + "/jobs.sqlite",
            ], executable: "cardd")
    }

    @Test func sigtermMidFlowStopsGracefullyAndTheLogShowsTheStepReached() async throws {
        let folder = try Self.folder()
        let daemon = try Self.start(folder: folder)
        _ = try await Self.waitForSocket(folder + "/cardd.sock", daemon: daemon)
        let running = try await Self.waitForJob(socket: folder + "/cardd.sock") {
            $0["state"] as? String == "running" && $0["lastStep"] as? String == "identify"
        }
        let signalled = ContinuousClock.now
        daemon.send(signal: SIGTERM)
        let result = try await daemon.waitForExit(timeout: .seconds(10))
        #expect(result.status == 0, "\(result)")
        #expect(ContinuousClock.now - signalled < .seconds(8), "graceful shutdown is bounded")
        #expect(!FileManager.default.fileExists(atPath: folder + "/cardd.sock"))

        let jobs = try await Self.restartedJobs(folder: folder)
        let job = try #require(jobs.first { $0["id"] as? Int == running["id"] as? Int })
        #expect(job["state"] as? String == "cancelled")
        #expect(job["lastStep"] as? String == "identify")
        #expect(job["cardUID"] as? String != nil)
    }

    @Test func sigkillMidFlowLeavesAnIntactLogMarkedInterrupted() async throws {
        let folder = try Self.folder()
        let daemon = try Self.start(folder: folder)
        _ = try await Self.waitForSocket(folder + "/cardd.sock", daemon: daemon)
        let running = try await Self.waitForJob(socket: folder + "/cardd.sock") {
            $0["state"] as? String == "running" && $0["lastStep"] as? String == "identify"
        }
        daemon.send(signal: SIGKILL)
        _ = try? await daemon.waitForExit(timeout: .seconds(5))

        let jobs = try await Self.restartedJobs(folder: folder)
        let job = try #require(jobs.first { $0["id"] as? Int == running["id"] as? Int })
        #expect(job["state"] as? String == "interrupted")
        #expect(job["lastStep"] as? String == "identify")
        // The restart itself appended nothing and lost nothing.
        #expect(jobs.count == 1)
    }

    @Test func sighupReloadsTheRulesAndABadFileKeepsTheOldOnes() async throws {
        let folder = try Self.folder()
        let config = folder + "/cardd.json"
        try Data(#"{"readers": ["sim:none"], "rules": []}"#.utf8).write(to: URL(fileURLWithPath: config))
        let daemon = try CardctlProcess(
            ["--config", config, "--socket", folder + "/cardd.sock", "--job-log", "none"],
            executable: "cardd")
        _ = try await Self.waitForSocket(folder + "/cardd.sock", daemon: daemon)
        try Data("{ broken".utf8).write(to: URL(fileURLWithPath: config))
        daemon.send(signal: SIGHUP)
        try await Task.sleep(for: .milliseconds(300))
        #expect(daemon.isRunning, "a bad configuration does not stop the daemon")
        let ping = try await CardctlProcess.run(["jobs", "--socket", folder + "/cardd.sock"])
        #expect(ping.status == 3, "no job log: the daemon answers with an error, and keeps serving\n\(ping)")
        #expect(ping.stderr.contains("jobLogUnavailable"))
        daemon.send(signal: SIGTERM)
        let result = try await daemon.waitForExit(timeout: .seconds(10))
        #expect(result.status == 0)
        #expect(result.stderr.contains("configuration reload failed"), "\(result.stderr)")
    }
}

/// `cardctl --socket` commands against a running cardd: list, watch, flow, jobs --cancel, and
/// a clear refusal from commands that would open the daemon's readers themselves.
@Suite("cardctl --socket", .serialized)
struct CardctlSocketTests {
    @Test func listFlowWatchAndCancelGoThroughTheDaemon() async throws {
        let folder = try CarddProcessTests.folder()
        let config = folder + "/cardd.json"
        try Data(#"{"readers": ["sim:desfire", "sim:ndef4"], "rules": []}"#.utf8).write(
            to: URL(fileURLWithPath: config))
        let socket = folder + "/cardd.sock"
        let daemon = try CardctlProcess(
            ["--config", config, "--socket", socket, "--job-log", folder + "/jobs.sqlite"],
            executable: "cardd")
        _ = try await CarddProcessTests.waitForSocket(socket, daemon: daemon)

        let list = try await CardctlProcess.run(["--socket", socket, "list"])
        #expect(list.status == 0, "\(list)")
        #expect(list.stdout.contains("sim:0: ") && list.stdout.contains("sim:1: "), "\(list)")

        // Any flow kind of the configuration, on a reader cardd names.
        let flow = try await CardctlProcess.run([
            "--socket", socket, "--reader", "sim:1", "flow", #"{"kind":"ndef-write","text":"via cardd"}"#,
        ])
        #expect(flow.status == 0, "\(flow)")
        #expect(flow.stdout.contains("succeeded sim:1 ndef-write"), "\(flow)")
        let read = try await CardctlProcess.run([
            "--socket", socket, "--reader", "sim:1", "--json", "flow", #"{"kind":"ndef-read"}"#,
        ])
        let record = try JSONSerialization.jsonObject(with: Data(read.stdout.utf8)) as? [String: Any]
        let message = (record?["outcome"] as? [String: Any])?["values"] as? [String: String]
        #expect(
            message?["message"]?.contains(Array("via cardd".utf8).map { String(format: "%02X", $0) }.joined()) == true,
            "\(read)")

        let unknownReader = try await CardctlProcess.run([
            "--socket", socket, "--reader", "sim:9", "flow", #"{"kind":"report"}"#,
        ])
        #expect(unknownReader.status == 3 && unknownReader.stderr.contains("unknownReader"), "\(unknownReader)")
        let badKind = try await CardctlProcess.run([
            "--socket", socket, "--reader", "sim:0", "flow", #"{"kind":"teleport"}"#,
        ])
        #expect(badKind.status != 0 && badKind.stderr.contains("unknown flow kind"), "\(badKind)")
        let notJSON = try await CardctlProcess.run(["--socket", socket, "flow", "kind=report"])
        #expect(notJSON.status == 2, "\(notJSON)")

        // Events stream until cardctl is stopped; a job submitted meanwhile shows up.
        let watch = try CardctlProcess(["--socket", socket, "--json", "watch"])
        try await Task.sleep(for: .milliseconds(500))
        _ = try await CardctlProcess.run(["--socket", socket, "--reader", "sim:0", "flow", #"{"kind":"report"}"#])
        // Stopped once it has printed the job's end (a gate, bounded), not 300 ms after the flow: a
        // loaded machine can take longer than that to get the event through to cardctl's output.
        var printed = false
        while !printed, let line = await watch.nextOutputLine(timeout: .seconds(30)) {
            printed = line.contains(#""event":"jobFinished""#)
        }
        watch.send(signal: SIGINT)
        let watched = try await watch.waitForExit(timeout: .seconds(5))
        #expect(watched.stdout.contains(#""event":"jobFinished""#), "\(watched)")

        let cancel = try await CardctlProcess.run(["--socket", socket, "jobs", "--cancel", "999"])
        #expect(cancel.status == 2 && cancel.stderr.contains("not running"), "\(cancel)")

        // A command that opens readers itself refuses --socket instead of ignoring it.
        let direct = try await CardctlProcess.run(["--socket", socket, "--reader", "sim:ndef4", "ndef", "read"])
        #expect(direct.status == 2 && direct.stderr.contains("--socket works with"), "\(direct)")

        daemon.send(signal: SIGTERM)
        #expect(try await daemon.waitForExit(timeout: .seconds(10)).status == 0)
    }
}
