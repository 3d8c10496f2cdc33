import CardFlowProcessTestSupport
import Foundation
import Synchronization
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// What a finished `cardctl` run left behind.
struct CardctlResult: Sendable, CustomStringConvertible {
    let arguments: [String]
    let status: Int32
    let stdout: String
    let stderr: String

    /// Output lines, without the empty string after the final newline.
    var stdoutLines: [String] { Self.lines(stdout) }
    var stderrLines: [String] { Self.lines(stderr) }

    static func lines(_ text: String) -> [String] {
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        if lines.last == "" { lines.removeLast() }
        return lines
    }

    var description: String {
        "cardctl \(arguments.joined(separator: " ")) → exit \(status)\n--- stdout\n\(stdout)--- stderr\n\(stderr)---"
    }
}

/// Why a `cardctl` run could not be observed.
struct CardctlHarnessError: Error, CustomStringConvertible {
    let description: String
}

/// Where the `cardctl` binary built with this test product lives.
enum CardctlExecutable {
    /// The `cardctl` next to the test product (same `.build…/debug` directory), or the one
    /// `CARDCTL_EXECUTABLE` names.
    static func locate(_ name: String = "cardctl") throws -> URL {
        let fileManager = FileManager.default
        let variable = name.uppercased() + "_EXECUTABLE"
        if let override = ProcessInfo.processInfo.environment[variable], !override.isEmpty {
            guard fileManager.isExecutableFile(atPath: override) else {
                throw CardctlHarnessError(description: "\(variable)=\(override) is not an executable file")
            }
            return URL(fileURLWithPath: override)
        }
        var searched: [String] = []
        for start in startingDirectories() {
            // The test bundle is `<products>/X.xctest` (a file on Linux, a directory with
            // Contents/MacOS inside on macOS): walk a few levels up to the products directory.
            var directory = start.standardizedFileURL
            for _ in 0..<4 {
                let candidate = directory.appendingPathComponent(name)
                searched.append(candidate.path)
                var isDirectory: ObjCBool = false
                if fileManager.fileExists(atPath: candidate.path, isDirectory: &isDirectory), !isDirectory.boolValue,
                    fileManager.isExecutableFile(atPath: candidate.path)
                {
                    return candidate
                }
                let parent = directory.deletingLastPathComponent()
                if parent.path == directory.path { break }
                directory = parent
            }
        }
        throw CardctlHarnessError(
            description: """
                \(name) executable not found next to the test product; build it with the tests \
                (swift build --build-tests) or set \(variable). Looked at:
                \(Array(Set(searched)).sorted().joined(separator: "\n"))
                """)
    }

    private static func startingDirectories() -> [URL] {
        var starts: [URL] = []
        for bundle in Bundle.allBundles where bundle.bundlePath.hasSuffix(".xctest") {
            starts.append(bundle.bundleURL.deletingLastPathComponent())
        }
        if let executable = Bundle.main.executableURL {
            starts.append(executable.deletingLastPathComponent())
        }
        starts.append(Bundle.main.bundleURL)
        #if os(Linux)
        if let resolved = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
            starts.append(URL(fileURLWithPath: resolved).deletingLastPathComponent())
        }
        #endif
        if let first = CommandLine.arguments.first, first.contains("/") {
            let cwd = URL(fileURLWithPath: FileManager.default.currentDirectoryPath, isDirectory: true)
            starts.append(URL(fileURLWithPath: first, relativeTo: cwd).deletingLastPathComponent())
        }
        return starts
    }
}

/// A running `cardctl` (a ``ChildProcess``: posix_spawn, not Foundation's `Process`): stdin is a
/// pipe (or /dev/null), stdout and stderr are collected by reader threads so a full pipe can never
/// block the child.
final class CardctlProcess: Sendable {
    /// Longest a run may take before it is killed and the test fails.
    static let defaultTimeout: Duration = .seconds(20)

    let arguments: [String]
    private let child: ChildProcess
    /// When SIGINT was sent and whether cardctl still ran then, taken on the sending thread so a
    /// busy Swift concurrency pool (other tests) cannot distort it.
    private let interruption = Interruption()

    /// Starts `cardctl arguments`. With `interactiveInput` the test writes stdin itself
    /// (``send(_:)``, ``closeInput()``); otherwise `input` (if any) is written and closed at
    /// once, and without either stdin is /dev/null.
    ///
    /// The child gets this process's environment without `CARDCTL_READER` and with
    /// `XDG_CONFIG_HOME` at an empty directory, so a developer's own default reader
    /// (`~/.config/cardflow/cardctl.json`) cannot change what a test sees; `environment` then
    /// sets (or, with nil, removes) variables.
    init(
        _ arguments: [String], input text: String? = nil, interactiveInput: Bool = false,
        executable: String = "cardctl", environment overrides: [String: String?] = [:]
    ) throws {
        self.arguments = arguments
        var environment = ProcessInfo.processInfo.environment
        environment["CARDCTL_READER"] = nil
        environment["XDG_CONFIG_HOME"] = try Self.emptyConfigurationHome()
        for (name, value) in overrides { environment[name] = value }
        child = try ChildProcess(
            CardctlExecutable.locate(executable).path, arguments, environment: environment,
            input: text != nil || interactiveInput ? .pipe : .null)
        if let text {
            send(text)
            if !interactiveInput { closeInput() }
        }
    }

    /// Writes `text` to the child's stdin.
    func send(_ text: String) {
        child.write(text)
    }

    /// Closes the child's stdin (end of input).
    func closeInput() {
        child.closeInput()
    }

    var isRunning: Bool { child.isRunning }

    /// Sends `signal` (SIGTERM, SIGKILL, SIGHUP…) now.
    func send(signal: Int32) {
        child.send(signal: signal)
    }

    /// Sends SIGINT now, as Ctrl-C in a terminal would.
    func interrupt() {
        interruption.send(to: child)
    }

    /// Sends SIGINT `delay` after now, from a Dispatch thread (on time even when the test's
    /// own task is starved).
    func interrupt(after delay: Duration) {
        let child = child
        let interruption = interruption
        let nanoseconds =
            Int(delay.components.seconds) * 1_000_000_000 + Int(delay.components.attoseconds / 1_000_000_000)
        DispatchQueue.global().asyncAfter(deadline: .now() + .nanoseconds(nanoseconds)) {
            interruption.send(to: child)
        }
    }

    /// After ``waitForExit(timeout:)``: whether the process was still running when SIGINT was
    /// sent, and how long after the signal it ended (nil if no signal was sent).
    var interruptOutcome: (wasRunning: Bool, exitDelay: Duration)? {
        guard let sent = interruption.sent, let exit = child.exitInstant else { return nil }
        return (sent.wasRunning, exit - sent.instant)
    }

    /// Waits for the next complete stderr line (consumed line by line, as ``nextOutputLine(timeout:)``).
    func nextErrorLine(timeout: Duration = .seconds(10)) async -> String? {
        await child.nextErrorLine(timeout: timeout)
    }

    /// Waits for the next complete stdout line (the output so far is consumed line by line).
    func nextOutputLine(timeout: Duration = .seconds(10)) async -> String? {
        await child.nextOutputLine(timeout: timeout)
    }

    /// Waits for the process to end; kills it and throws when it takes longer than `timeout`.
    func waitForExit(timeout: Duration = CardctlProcess.defaultTimeout) async throws -> CardctlResult {
        let result = try await child.waitForExit(timeout: timeout)
        return CardctlResult(
            arguments: arguments, status: result.status, stdout: result.outputText, stderr: result.errorText)
    }

    /// Runs `cardctl arguments` to completion (at most `timeout`).
    static func run(
        _ arguments: [String], input: String? = nil, environment: [String: String?] = [:],
        timeout: Duration = defaultTimeout
    ) async throws -> CardctlResult {
        try await CardctlProcess(arguments, input: input, environment: environment).waitForExit(timeout: timeout)
    }

    /// An empty directory for `XDG_CONFIG_HOME` (one for every run, nothing is written to it).
    static func emptyConfigurationHome() throws -> String {
        try configurationHome.get()
    }

    private static let configurationHome = Result<String, any Error> {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("cardctl-tests-empty-config")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory.path
    }
}

/// When SIGINT was sent to a cardctl and whether it still ran then.
private final class Interruption: Sendable {
    private let state = Mutex<(instant: ContinuousClock.Instant, wasRunning: Bool)?>(nil)

    var sent: (instant: ContinuousClock.Instant, wasRunning: Bool)? { state.withLock { $0 } }

    func send(to child: ChildProcess) {
        let now = ContinuousClock.now
        state.withLock { $0 = (now, child.isRunning) }
        child.send(signal: SIGINT)
    }
}

/// Helpers shared by the suites.
enum Fixtures {
    /// The package root (this file is Tests/CardctlTests/CardctlProcess.swift).
    static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// Tests/Fixtures/ccid-readers in this repository, if present.
    static let readerDumps = packageRoot.appendingPathComponent("Tests/Fixtures/ccid-readers")

    static func readerDump(_ name: String) -> URL { readerDumps.appendingPathComponent(name) }

    static var hasReaderDumps: Bool {
        FileManager.default.fileExists(atPath: readerDump("ACR122U_PICC.txt").path)
    }

    /// A fresh empty directory for one test; remove it with ``removeDirectory(_:)``.
    static func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory
            .appendingPathComponent("cardctl-tests-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    static func removeDirectory(_ url: URL) {
        try? FileManager.default.removeItem(at: url)
    }

    /// Parses `text` as a JSON array of objects.
    static func jsonObjects(_ text: String) throws -> [[String: Any]] {
        let value = try JSONSerialization.jsonObject(with: Data(text.utf8))
        guard let array = value as? [[String: Any]] else {
            throw CardctlHarnessError(description: "expected a JSON array of objects, got: \(text)")
        }
        return array
    }
}

/// APDUs and answers of the simulated iso7816 card (Sources/CardFlowSimulator/Cards/ISO7816Card.swift).
enum Card {
    /// SELECT by AID A0 00 00 02 47 10 01 (the default application), FCI requested.
    static let selectApplication = "00A4040007A0000002471001"
    /// Its FCI: 6F { 83 7001, 84 AID }.
    static let applicationFCI = "6F0D830270018407A0000002471001"
    /// SELECT of an AID the card does not hold.
    static let selectUnknownApplication = "00A4040007A0000002479999"
    /// SELECT EF 0101 / 0103 under the current DF, no response data.
    static let selectEF0101 = "00A4020C020101"
    static let selectEF0103 = "00A4020C020103"
    /// READ BINARY of the first `count` bytes of the current EF.
    static func readBinary(_ count: Int) -> String { "00B00000" + hex([UInt8(count)]) }
    /// EF 0101's initial content, bytes 00…1F.
    static let ef0101 = (0..<32).map { UInt8($0) }

    static func hex(_ bytes: some Sequence<UInt8>) -> String {
        bytes.map { byte in
            let digits = String(byte, radix: 16, uppercase: true)
            return digits.count == 1 ? "0" + digits : digits
        }.joined()
    }
}
