import CardFlowProcessTestSupport
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// vsmartcard's own programs, for the interop tests, and why they cannot run when missing.
///
/// Interop tests skip only outside CI: with `CI` set, a missing peer fails the test instead.
enum VPCDPeers {
    static var isCI: Bool { ProcessInfo.processInfo.environment["CI"] != nil }

    /// Where Scripts/setup.sh puts pycryptodome for vicc.
    static var pythonDependencies: String {
        let environment = ProcessInfo.processInfo.environment
        if let folder = environment["CARDFLOW_PYDEPS"] { return folder }
        let cache = environment["XDG_CACHE_HOME"] ?? (NSHomeDirectory() + "/.cache")
        return cache + "/cardflow/pydeps"
    }

    /// Debian's python3-virtualsmartcard installs its module one folder deeper than vicc imports it.
    static let viccModuleFolder = "/usr/lib/python3/site-packages/virtualsmartcard"

    static func executable(_ name: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return path.split(separator: ":").map { "\($0)/\(name)" }.first {
            FileManager.default.isExecutableFile(atPath: $0)
        }
    }

    /// Nil when vicc can run; else what is missing.
    static let viccMissing: String? = {
        guard executable("vicc") != nil else { return "vicc (apt-get install vsmartcard-vpicc)" }
        guard FileManager.default.fileExists(atPath: viccModuleFolder + "/virtualsmartcard") else {
            return "\(viccModuleFolder)/virtualsmartcard (python3-virtualsmartcard)"
        }
        guard FileManager.default.fileExists(atPath: pythonDependencies + "/Crypto") else {
            return "pycryptodome in \(pythonDependencies) (Scripts/setup.sh installs it)"
        }
        return nil
    }()

    static var canRunVicc: Bool { isCI || viccMissing == nil }
}

/// A running `vicc -t iso7816`, connecting to a vpcd listener on loopback.
final class ViccProcess {
    private let child: ChildProcess
    let logPath: String

    /// - Parameter launcher: a command vicc runs under, such as `ip netns exec NAME` (that
    ///   command execs vicc, so the process is vicc itself).
    init(type: String = "iso7816", host: String = "127.0.0.1", port: Int, launcher: [String] = []) throws {
        if let missing = VPCDPeers.viccMissing { throw PeerMissing(what: missing) }
        logPath = NSTemporaryDirectory() + "vicc-\(port)-\(UUID().uuidString).log"
        _ = FileManager.default.createFile(atPath: logPath, contents: nil)
        var environment = ProcessInfo.processInfo.environment
        environment["PYTHONPATH"] = VPCDPeers.viccModuleFolder + ":" + VPCDPeers.pythonDependencies
        let command = launcher + [VPCDPeers.executable("vicc")!, "-t", type, "-H", host, "-P", "\(port)"]
        child = try ChildProcess(
            command[0], Array(command.dropFirst()),
            environment: environment, output: .file(logPath), errors: .file(logPath))
    }

    /// vicc's log, for failure messages.
    var log: String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }

    /// Waits (bounded) for vicc to exit; true when it did.
    func waitForExit(within limit: Duration = .seconds(5)) async -> Bool {
        let deadline = ContinuousClock.now + limit
        while child.isRunning, ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(20))
        }
        return !child.isRunning
    }

    /// Kills vicc at once, like a phone leaving: SIGKILL, because a test runner may start its
    /// children with SIGTERM ignored.
    func kill() {
        child.send(signal: SIGKILL)
    }

    func stop() {
        kill()
        try? FileManager.default.removeItem(atPath: logPath)
    }

    struct PeerMissing: Error, CustomStringConvertible {
        let what: String
        var description: String { "interop peer missing: \(what)" }
    }
}
