import CardFlowBench
import CardFlowProcessTestSupport
import Foundation
import Testing

/// Whether the real-browser check can run here: chromium and python's websocket module. On CI
/// (`CI=true`) it must run, so it counts as available there whatever is installed, and fails
/// loudly when something is missing.
enum BrowserCheck {
    /// The package's root folder (this file is Tests/CardFlowBenchTests/…).
    static let packageRoot: URL = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    static let inCI = ProcessInfo.processInfo.environment["CI"] == "true"

    static let available: Bool = inCI || (chromiumInstalled && websocketModuleInstalled)

    static var chromiumInstalled: Bool {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return path.split(separator: ":").contains { folder in
            ["chromium", "chromium-browser"].contains {
                FileManager.default.isExecutableFile(atPath: "\(folder)/\($0)")
            }
        }
    }

    static var websocketModuleInstalled: Bool {
        (try? run(["python3", "-c", "import websocket"], timeout: .seconds(20)).status) == 0
    }

    /// A finished child process.
    struct Outcome {
        var status: Int32
        var output: String
        var timedOut: Bool
    }

    /// Runs a program found on PATH, its output in a file (no pipe to fill), waits for it at most
    /// `timeout` (then terminates it) and always waits until it has exited.
    ///
    /// - Parameters:
    ///   - arguments: the program and its arguments.
    ///   - timeout: how long it may run.
    /// - Returns: its exit status and its standard output and error.
    static func run(_ arguments: [String], timeout: Duration) throws -> Outcome {
        let outputURL = FileManager.default.temporaryDirectory.appendingPathComponent(
            "cardflow-browser-check-\(UUID().uuidString).log")
        _ = FileManager.default.createFile(atPath: outputURL.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: outputURL) }
        let child = try ChildProcess(
            "/usr/bin/env", arguments, workingDirectory: packageRoot.path, output: .file(outputURL.path),
            errors: .file(outputURL.path))
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        var timedOut = false
        while child.isRunning {
            if clock.now >= deadline {
                timedOut = true
                child.send(signal: SIGTERM)
                break
            }
            Thread.sleep(forTimeInterval: 0.1)
        }
        let status = child.waitUntilExit().status
        let text = (try? String(contentsOf: outputURL, encoding: .utf8)) ?? ""
        return Outcome(status: status, output: text, timedOut: timedOut)
    }
}

@Suite("Bench report in a real browser")
struct BenchReportBrowserTests {
    @Test(
        "headless Chromium loads the full report without console errors, draws every chart and screenshots it",
        .enabled(
            if: BrowserCheck.available,
            "chromium and python websocket-client are needed (Scripts/setup.sh installs them)"),
        .timeLimit(.minutes(2)))
    func reportInChromium() throws {
        // CARDFLOW_BENCH_REPORT_DIR keeps the page and its screenshot (to look at them).
        let kept = ProcessInfo.processInfo.environment["CARDFLOW_BENCH_REPORT_DIR"].map { URL(fileURLWithPath: $0) }
        let folder =
            kept
            ?? FileManager.default.temporaryDirectory.appendingPathComponent("cardflow-report-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { if kept == nil { try? FileManager.default.removeItem(at: folder) } }
        let report = folder.appendingPathComponent("report.html")
        let screenshot = folder.appendingPathComponent("report.png")
        try Data(BenchHTMLReport.render(BenchReportFixtures.fullDocument()).utf8).write(to: report)

        let script = BrowserCheck.packageRoot.appendingPathComponent("Scripts/report-browser-check.py").path
        let outcome = try BrowserCheck.run(
            [
                "python3", script, report.path, "--screenshot", screenshot.path, "--expect",
                "latency-histogram,percentile-curve,sweep,operations,comparison",
            ], timeout: .seconds(90))
        #expect(!outcome.timedOut, "the browser check did not finish in 90 s")
        #expect(outcome.status == 0, "report-browser-check.py failed:\n\(outcome.output)")
        let attributes = try? FileManager.default.attributesOfItem(atPath: screenshot.path)
        let size = (attributes?[.size] as? NSNumber)?.intValue ?? 0
        #expect(size > 10_000, "screenshot of \(size) bytes")
        #expect(outcome.output.contains("\"ok\": true"))
    }
}
