import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// pcscd started and stopped by `bench compare --start-pcscd`: in the foreground as cardctl's
/// child (so it inherits a `cardctl simulate` testbed's environment and sees the emulated
/// reader), its output kept in a file that failures quote.
final class PCSCDaemonLauncher: Sendable {
    /// pcscd's socket on Debian; only one pcscd can run.
    static let socketPath = "/run/pcscd/pcscd.comm"

    private let process: Process
    let logPath: String

    private init(process: Process, logPath: String) {
        self.process = process
        self.logPath = logPath
    }

    /// A pcscd already running, which would hold USB readers and the socket.
    static func running() -> [ProcessHolder] {
        ProcessTable().processes(named: "pcscd")
    }

    /// Starts `executable --foreground`.
    static func start(executable: String) throws -> PCSCDaemonLauncher {
        guard let path = resolve(executable) else {
            throw InputError(description: "pcscd not found (\(executable)); install it: apt-get install pcscd libccid")
        }
        let logPath = FileManager.default.temporaryDirectory.appendingPathComponent(
            "cardctl-bench-pcscd-\(getpid()).log"
        ).path
        FileManager.default.createFile(atPath: logPath, contents: nil)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = ["--foreground"]
        let log = try FileHandle(forWritingTo: URL(fileURLWithPath: logPath))
        process.standardOutput = log
        process.standardError = log
        process.standardInput = FileHandle.nullDevice
        do {
            try process.run()
        } catch {
            throw InputError(description: "could not start \(path): \(error.localizedDescription)")
        }
        try? log.close()
        return PCSCDaemonLauncher(process: process, logPath: logPath)
    }

    var isRunning: Bool { process.isRunning }

    /// The last lines pcscd wrote, for error messages.
    func logTail(lines: Int = 12) -> String {
        guard let text = try? String(contentsOfFile: logPath, encoding: .utf8) else { return "(no output)" }
        let tail = text.split(separator: "\n").suffix(lines).joined(separator: "\n")
        return tail.isEmpty ? "(no output)" : tail
    }

    /// SIGTERM, then SIGKILL if it is still there after `grace`; always reaps it.
    func stop(grace: Duration = .seconds(5)) async {
        if process.isRunning {
            process.terminate()
            let clock = ContinuousClock()
            let deadline = clock.now.advanced(by: grace)
            while process.isRunning, clock.now < deadline {
                try? await Task.sleep(for: .milliseconds(20))
            }
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        }
        process.waitUntilExit()
        try? FileManager.default.removeItem(atPath: logPath)
    }

    /// The executable by path, or found on PATH (and the sbin folders pcscd lives in), as
    /// `simulate` finds its command.
    private static func resolve(_ executable: String) -> String? {
        if executable.contains("/") {
            return FileManager.default.isExecutableFile(atPath: executable) ? executable : nil
        }
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
        return SimulateCommand.resolve(executable, path: path + ":/usr/sbin:/sbin")
    }
}
