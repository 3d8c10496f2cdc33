import CardFlowProcessTestSupport
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `cardctl simulate -- COMMAND`: cardctl as the emulator process, COMMAND as its client.
extension USBIntegration {
    @Suite struct SimulateCommand {
        @Test func childSeesTheEmulatedBus() async throws {
            guard try MockEnvironment.testbed() != nil else { return }
            let run = try await Cardctl.run([
                "simulate", "--", "sh", "-c",
                """
                echo "dir=$UMOCKDEV_DIR"; echo "preload=$LD_PRELOAD"
                for f in idVendor idProduct product; do echo "$f=$(cat /sys/bus/usb/devices/1-1/$f)"; done
                echo "interface=$(cat /sys/bus/usb/devices/1-1/1-1:1.0/bInterfaceClass)"
                """,
            ])
            #expect(run.status == 0, "\(run)")
            let lines = Set(run.stdout.split(separator: "\n").map(String.init))
            #expect(lines.contains { $0.hasPrefix("dir=/") && $0.contains("umockdev") }, "\(run)")
            #expect(lines.contains { $0.hasPrefix("preload=") && $0.contains("libumockdev-preload.so.0") }, "\(run)")
            #expect(lines.contains("idVendor=1209"), "\(run)")
            #expect(lines.contains("idProduct=2702"), "\(run)")
            #expect(lines.contains("product=CardFlow Virtual Reader"), "\(run)")
            #expect(lines.contains("interface=0b"), "\(run)")
        }

        @Test func environmentOfTheChild() async throws {
            guard try MockEnvironment.testbed() != nil else { return }
            let run = try await Cardctl.run(["simulate", "--card", "iso7816,seed=3", "--", "/usr/bin/env"])
            #expect(run.status == 0, "\(run)")
            let variables = Dictionary(
                run.stdout.split(separator: "\n").compactMap { line -> (String, String)? in
                    let parts = line.split(separator: "=", maxSplits: 1).map(String.init)
                    return parts.count == 2 ? (parts[0], parts[1]) : nil
                }, uniquingKeysWith: { _, last in last })
            let directory = try #require(variables["UMOCKDEV_DIR"], "\(run)")
            #expect(directory.hasPrefix("/"))
            #expect(variables["LD_PRELOAD"]?.split(separator: ":").first == "libumockdev-preload.so.0")
            #expect(variables["CARDCTL_SIMULATE_REEXEC"] == nil, "the re-exec marker stays with cardctl")
            // cardctl removes the sandbox when it exits
            #expect(!FileManager.default.fileExists(atPath: directory))
        }

        @Test func restartsItselfUnderThePreload() async throws {
            guard try MockEnvironment.testbed() != nil else { return }
            let run = try await Cardctl.run(["simulate", "--", "sh", "-c", "echo \"$LD_PRELOAD\""], preloaded: false)
            #expect(run.status == 0, "\(run)")
            #expect(run.stdout.contains("libumockdev-preload.so.0"), "\(run)")
        }

        @Test func exitStatusOfTheCommand() async throws {
            guard try MockEnvironment.testbed() != nil else { return }
            #expect(try await Cardctl.run(["simulate", "--", "sh", "-c", "exit 7"]).status == 7)
            #expect(try await Cardctl.run(["simulate", "--", "sh", "-c", "kill -TERM $$"]).status == 128 + SIGTERM)
            #expect(try await Cardctl.run(["simulate", "--", "no-such-command-cardflow"]).status == 127)
            let usage = try await Cardctl.run(["simulate"])
            #expect(usage.status == 2, "\(usage)")
            let badCard = try await Cardctl.run(["simulate", "--card", "nosuchcard", "--", "true"])
            #expect(badCard.status == 2, "\(badCard)")
        }

        @Test func replayOfARecordedReader() async throws {
            guard try MockEnvironment.testbed() != nil else { return }
            let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                .appendingPathComponent("Fixtures")
            let log = fixtures.appendingPathComponent("transcripts/pcsc-71-gemalto-ct40-t1.log").path
            let replay = [
                "simulate", "--replay", log, "--fixtures", fixtures.appendingPathComponent("ccid-readers").path,
            ]
            // The log's first APDU through CardFlow's libusb driver in a child: the recorded answer.
            let run = try await Cardctl.run(
                replay + [
                    "--", try Cardctl.executable(), "--reader", "usb", "apdu", "--raw",
                    "80F8000008378EDECD843BF4E0",
                ])
            #expect(run.status == 0, "\(run)")
            #expect(
                run.stdout.replacingOccurrences(of: " ", with: "").hasPrefix("43378EDECD843BF4E0047911C2"), "\(run)")
            #expect(run.stdout.replacingOccurrences(of: " ", with: "").contains("2C87B91A6A9000"), "\(run)")
            #expect(run.stderr.contains("command(s) matched the recording, 0 did not"), "\(run)")
            // A command the recording never saw: no answer (the host times out), and the summary says so.
            let unknown = try await Cardctl.run(
                replay + [
                    "--", try Cardctl.executable(), "--reader", "usb", "apdu",
                    "00A4040000",
                ])
            #expect(unknown.status != 0, "\(unknown)")
            #expect(
                unknown.stderr.contains("1 did not") && unknown.stderr.contains("mismatch at segment"), "\(unknown)")
            // --replay plays the recorded card: --card does not apply.
            let both = try await Cardctl.run(replay + ["--card", "iso7816", "--", "true"])
            #expect(both.status == 2, "\(both)")
        }

        @Test func signalsArePassedOn() async throws {
            guard try MockEnvironment.testbed() != nil else { return }
            for (number, code) in [(SIGTERM, 9), (SIGINT, 5)] {
                // Bounded: a signal that never arrives ends the child after ~30 s with 3, not a hang.
                let script =
                    "trap 'exit \(code)' \(number == SIGTERM ? "TERM" : "INT"); echo ready; "
                    + "i=0; while [ $i -lt 600 ]; do sleep 0.05; i=$((i+1)); done; exit 3"
                let run = try await Cardctl.run(["simulate", "--", "sh", "-c", script], signalWhenReady: number)
                #expect(run.status == Int32(code), "signal \(number): \(run)")
            }
        }
    }
}

/// Runs the `cardctl` built next to this test product.
enum Cardctl {
    struct Run: CustomStringConvertible, Sendable {
        let status: Int32
        let stdout: String
        let stderr: String
        var description: String { "exit \(status)\n--- stdout\n\(stdout)--- stderr\n\(stderr)---" }
    }

    static func executable() throws -> String {
        if let override = ProcessInfo.processInfo.environment["CARDCTL_EXECUTABLE"], !override.isEmpty {
            return override
        }
        let products = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
        let candidate = products.appendingPathComponent("cardctl").path
        guard FileManager.default.isExecutableFile(atPath: candidate) else {
            throw CardctlNotFound(
                description:
                    "cardctl not found at \(candidate); build it (swift build --build-tests) or set CARDCTL_EXECUTABLE")
        }
        return candidate
    }

    struct CardctlNotFound: Error, CustomStringConvertible { let description: String }

    /// Runs cardctl to its end. Without `preloaded` it starts without umockdev's preload (and
    /// must restart itself under it). With `signalWhenReady`, that signal goes to cardctl once
    /// the child printed "ready".
    static func run(_ arguments: [String], preloaded: Bool = true, signalWhenReady: Int32? = nil) async throws -> Run {
        var environment = ProcessInfo.processInfo.environment
        environment["UMOCKDEV_DIR"] = nil // this test process's own sandbox is not cardctl's
        if !preloaded { environment["LD_PRELOAD"] = nil }
        let child = try ChildProcess(executable(), arguments, environment: environment)
        if let number = signalWhenReady {
            let deadline = ContinuousClock.now + .seconds(10)
            while !child.outputText.contains("ready"), child.isRunning, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(5))
            }
            child.send(signal: number)
        }
        // A bound against a hang, not a time the test measures.
        let result = try await child.waitForExit(timeout: .seconds(120))
        return Run(status: result.status, stdout: result.outputText, stderr: result.errorText)
    }
}
