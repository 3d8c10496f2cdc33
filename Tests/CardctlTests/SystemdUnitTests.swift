import CardFlowProcessTestSupport
import CardFlowSimulator
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Examples/cardd/cardd.service and cardd.example.json work together as shipped: the unit's own
/// `ExecStart` runs with the example configuration in a temporary root where, as under
/// `ProtectSystem=strict`, only the unit's state and runtime directories are writable; cardd
/// tells systemd it is ready once its socket listens, a simulated TON card is activated end to
/// end (which writes the card's HMAC key into the key store), `ExecReload` reloads, SIGTERM stops.
@Suite("cardd's systemd unit as shipped", .serialized)
struct SystemdUnitTests {
    static let examples = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Examples/cardd")

    static func unit() throws -> SystemdServiceSection {
        try SystemdServiceSection(
            text: String(contentsOf: examples.appendingPathComponent("cardd.service"), encoding: .utf8))
    }

    static func exampleConfiguration() throws -> [String: Any] {
        let data = try Data(contentsOf: examples.appendingPathComponent("cardd.example.json"))
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    @Test func everyPathCarddWritesIsInADirectoryTheUnitMakesWritable() throws {
        let unit = try Self.unit()
        #expect(unit["Type"] == "notify")
        #expect(unit["ProtectSystem"] == "strict")
        let writable = try unit.writableDirectories()
        let configuration = try Self.exampleConfiguration()
        for key in ["socket", "jobLog", "keyStore"] {
            let path = try #require(configuration[key] as? String, "\(key)")
            #expect(writable.contains { path.hasPrefix($0 + "/") }, "\(key) \(path) is not under \(writable)")
        }
        let configurationDirectory = "/etc/" + (try #require(unit["ConfigurationDirectory"]))
        let arguments = try unit.execStart()
        let configFlag = try #require(arguments.firstIndex(of: "--config"))
        #expect(arguments[configFlag + 1].hasPrefix(configurationDirectory + "/"))
    }

    @Test func theUnitsExecStartActivatesATONCardAndTellsSystemdEachState() async throws {
        let unit = try Self.unit()
        let root = "/tmp/cardd-unit-\(UUID().uuidString.prefix(8))"
        let sandbox = try UnitSandbox(root: root, unit: unit)
        defer { sandbox.remove() }

        // The example configuration with its paths moved into the root, and a simulated TON card
        // on a simulated reader instead of USB readers.
        var configuration = try Self.exampleConfiguration()
        for key in ["socket", "jobLog", "keyStore"] {
            configuration[key] = sandbox.moved(try #require(configuration[key] as? String))
        }
        configuration["readers"] = ["sim:ton"]
        let arguments = try unit.execStart()
        #expect(arguments.first == "/usr/local/bin/cardd")
        let configFlag = try #require(arguments.firstIndex(of: "--config"))
        let configPath = sandbox.moved(arguments[configFlag + 1])
        try JSONSerialization.data(withJSONObject: configuration).write(to: URL(fileURLWithPath: configPath))

        // The operator's step: the TON card's activation data and the PIN, in the key store.
        let factory = TONFactoryData.vectorA
        let keyStore = try #require(configuration["keyStore"] as? String)
        for (name, hex) in [
            ("ton.activation.\(factory.serialNumber)", factory.password + factory.commonSecret + factory.iv),
            ("ton.pin", "35353535"),
        ] {
            let stored = try await CardctlProcess.run(["key", "set-secret", name, hex, "--key-store", keyStore])
            try #require(stored.status == 0, "\(stored)")
        }

        let notifications = try NotificationSocket(path: root + ".notify")
        defer { notifications.close() }
        let daemon = try sandbox.start(
            executable: try CardctlExecutable.locate("cardd").path,
            arguments: Array(arguments.dropFirst()).map(sandbox.moved),
            environment: ["NOTIFY_SOCKET": notifications.path])
        defer { daemon.kill() }

        let ready = try await notifications.next(within: .seconds(60), while: daemon)
        #expect(ready.hasPrefix("READY=1"), "\(ready)")
        let socket = try #require(configuration["socket"] as? String)
        // READY=1 comes only once clients can connect.
        #expect(FileManager.default.fileExists(atPath: socket))

        let job = try await CarddProcessTests.waitForJob(socket: socket) {
            $0["rule"] as? String == "ton wallets" && $0["state"] as? String != "running"
        }
        #expect(job["state"] as? String == "succeeded", "\(job) \(daemon.errors())")
        // The write ProtectSystem=strict would refuse outside the state directory.
        let keys = try String(contentsOfFile: keyStore, encoding: .utf8)
        #expect(keys.contains("ton.hmac.\(factory.serialNumber)"))

        let reload = try #require(unit["ExecReload"]).replacingOccurrences(of: "$MAINPID", with: "\(daemon.pid)")
        let reloader = try await ChildProcess.run("/bin/sh", ["-c", reload])
        #expect(reloader.status == 0, "\(reloader)")
        #expect(try await notifications.next(within: .seconds(20), while: daemon).hasPrefix("RELOADING=1"))
        #expect(try await notifications.next(within: .seconds(20), while: daemon) == "READY=1")

        daemon.signal(SIGTERM)
        #expect(try await notifications.next(within: .seconds(20), while: nil) == "STOPPING=1")
        let status = try await daemon.waitForExit(within: .seconds(20))
        #expect(status == 0, "\(daemon.errors())")
    }
}

/// The `[Service]` section of a unit file: each key's last value (later assignments win, as for
/// the settings used here).
struct SystemdServiceSection {
    private var values: [String: String] = [:]

    init(text: String) throws {
        var section = ""
        for rawLine in text.split(separator: "\n") {
            let line = rawLine.trimmingCharacters(in: .whitespaces)
            if line.isEmpty || line.hasPrefix("#") || line.hasPrefix(";") { continue }
            if line.hasPrefix("[") {
                section = line
                continue
            }
            guard section == "[Service]", let equals = line.firstIndex(of: "=") else { continue }
            values[String(line[..<equals])] = String(line[line.index(after: equals)...])
        }
    }

    subscript(key: String) -> String? { values[key] }

    /// `ExecStart` split into words (the shipped line has no quoting; refuse one that has).
    func execStart() throws -> [String] {
        let line = try #require(values["ExecStart"])
        try #require(!line.contains("\"") && !line.contains("'"), "quoted ExecStart: extend the test's parser")
        return line.split(separator: " ").map(String.init)
    }

    /// The directories systemd makes writable for the service despite `ProtectSystem=strict`.
    func writableDirectories() throws -> [String] {
        ["/var/lib/" + (try #require(values["StateDirectory"])), "/run/" + (try #require(values["RuntimeDirectory"]))]
    }
}

/// A temporary root holding the unit's directories. Under root (CI), cardd runs in a private
/// mount namespace where the whole root is read-only except the state and runtime directories,
/// as `ProtectSystem=strict` makes it; otherwise file modes make the rest read-only.
struct UnitSandbox {
    let root: String
    let directories: [String]
    let writable: [String]
    let isolatedByMount: Bool

    init(root: String, unit: SystemdServiceSection) throws {
        self.root = root
        writable = try unit.writableDirectories()
        directories = ["/etc/" + (try #require(unit["ConfigurationDirectory"]))] + writable
        isolatedByMount = geteuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/unshare")
        for directory in directories {
            try FileManager.default.createDirectory(
                atPath: root + directory, withIntermediateDirectories: true,
                attributes: [.posixPermissions: 0o700])
        }
    }

    /// `path` inside the root when it lies in one of the unit's directories.
    func moved(_ path: String) -> String {
        directories.contains { path == $0 || path.hasPrefix($0 + "/") } ? root + path : path
    }

    func start(executable: String, arguments: [String], environment: [String: String]) throws -> SandboxedDaemon {
        let command: [String]
        if isolatedByMount {
            // unshare and sh exec in place: the daemon keeps this process's pid ($MAINPID).
            let mounts =
                ["mount --bind \"$ROOT\" \"$ROOT\""]
                + writable.map { "mount --bind \"$ROOT\($0)\" \"$ROOT\($0)\"" }
                + ["mount -o remount,bind,ro \"$ROOT\"", "exec \"$@\""]
            command =
                [
                    "/usr/bin/unshare", "--mount", "--propagation", "private", "/bin/sh", "-ec",
                    mounts.joined(separator: "\n"),
                    "sh", executable,
                ] + arguments
        } else {
            for directory in ["/etc", "/var/lib", "/var", "/run", "", directories[0]] {
                chmod(root + directory, 0o555)
            }
            command = [executable] + arguments
        }
        let errors = root + ".stderr"
        _ = FileManager.default.createFile(atPath: errors, contents: nil)
        let child = try ChildProcess(
            command[0], Array(command.dropFirst()),
            environment: ProcessInfo.processInfo.environment.merging(environment.merging(["ROOT": root]) { $1 }) { $1 },
            output: .null, errors: .file(errors))
        return SandboxedDaemon(child: child, errorsPath: errors)
    }

    func remove() {
        for directory in ["/etc", "/var/lib", "/var", "/run", "", directories[0]] {
            chmod(root + directory, 0o755)
        }
        try? FileManager.default.removeItem(atPath: root)
        try? FileManager.default.removeItem(atPath: root + ".stderr")
    }
}

struct SandboxedDaemon {
    let child: ChildProcess
    let errorsPath: String

    var pid: Int32 { child.pid }

    func signal(_ signal: Int32) { Glibc.kill(pid, signal) }

    func kill() {
        child.send(signal: SIGKILL)
    }

    func errors() -> String { (try? String(contentsOfFile: errorsPath, encoding: .utf8)) ?? "" }

    func waitForExit(within limit: Duration) async throws -> Int32 {
        let deadline = ContinuousClock.now + limit
        while child.isRunning {
            guard ContinuousClock.now < deadline else {
                kill()
                throw CardctlHarnessError(description: "cardd did not stop within \(limit):\n\(errors())")
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        return child.termination?.status ?? -1
    }
}

/// The datagram socket systemd would listen on (`NOTIFY_SOCKET`).
struct NotificationSocket {
    let path: String
    private let descriptor: Int32

    init(path: String) throws {
        self.path = path
        unlink(path)
        descriptor = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        try #require(bytes.count < MemoryLayout.size(ofValue: address.sun_path))
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes) }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        try #require(descriptor >= 0 && bound == 0, "cannot bind \(path): errno \(errno)")
    }

    /// The next notification; fails when `daemon` ends first or nothing comes within `limit`.
    func next(within limit: Duration, while daemon: SandboxedDaemon?) async throws -> String {
        let deadline = ContinuousClock.now + limit
        var buffer = [UInt8](repeating: 0, count: 4096)
        while ContinuousClock.now < deadline {
            let count = recv(descriptor, &buffer, buffer.count, Int32(MSG_DONTWAIT))
            if count > 0 { return String(decoding: buffer[..<count], as: UTF8.self) }
            if let daemon, !daemon.child.isRunning {
                throw CardctlHarnessError(
                    description:
                        "cardd ended (\(daemon.child.termination.map(String.init(describing:)) ?? "?")):\n\(daemon.errors())"
                )
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        throw CardctlHarnessError(description: "no notification from cardd within \(limit):\n\(daemon?.errors() ?? "")")
    }

    func close() {
        Glibc.close(descriptor)
        unlink(path)
    }
}
