import Foundation
import Testing

/// Without --reader: CARDCTL_READER, then cardctl.json, then the first USB reader; never a
/// simulated card nobody asked for.
@Suite("cardctl default reader")
struct DefaultReaderTests {
    /// True when sysfs shows no USB interface of the smart-card class (0B): cardctl's default
    /// then has no reader. Where one is plugged in, the no-reader test cannot be made to hold.
    static var noSmartCardInterface: Bool {
        let root = "/sys/bus/usb/devices"
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []
        return !entries.contains { entry in
            let text = try? String(contentsOfFile: "\(root)/\(entry)/bInterfaceClass", encoding: .utf8)
            return text?.trimmingCharacters(in: .whitespacesAndNewlines) == "0b"
        }
    }

    /// A configuration home whose cardflow/cardctl.json holds `json`.
    private func configurationHome(_ json: String) throws -> URL {
        let home = try Fixtures.temporaryDirectory()
        let folder = home.appendingPathComponent("cardflow")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try Data(json.utf8).write(to: folder.appendingPathComponent("cardctl.json"))
        return home
    }

    @Test("nothing chosen and no USB reader: exit 3, and the message says how to pick the simulator",
          .enabled(if: noSmartCardInterface, "a USB smart-card reader is plugged in"),
          arguments: [["apdu", Card.selectApplication], ["list"], ["list", "--json"], ["shell"]])
    func noReaderAnywhere(arguments: [String]) async throws {
        let result = try await CardctlProcess.run(arguments)
        #expect(result.status == 3, "\(result)")
        #expect(result.stderr.contains("no USB CCID reader found"), "\(result)")
        #expect(result.stderr.contains("--reader sim"), "\(result)")
        #expect(result.stdout.isEmpty, "no simulated card answers: \(result)")
    }

    @Test func environmentVariableChoosesTheReader() async throws {
        let result = try await CardctlProcess.run(["apdu", Card.selectApplication], environment: ["CARDCTL_READER": "sim:iso7816"])
        #expect(result.status == 0, "\(result)")
        #expect(result.stdoutLines == ["\(Card.applicationFCI) 9000"], "\(result)")
    }

    @Test func configurationFileChoosesTheReader() async throws {
        let home = try configurationHome(#"{"reader": "sim:none"}"#)
        defer { Fixtures.removeDirectory(home) }
        let result = try await CardctlProcess.run(["apdu", Card.selectApplication], environment: ["XDG_CONFIG_HOME": home.path])
        #expect(result.status == 1, "sim:none has no card: \(result)")
        #expect(result.stderr.contains("no card"), "\(result)")
    }

    @Test func optionBeatsEnvironmentBeatsConfigurationFile() async throws {
        let home = try configurationHome(#"{"reader": "sim:none"}"#)
        defer { Fixtures.removeDirectory(home) }
        let fromEnvironment = try await CardctlProcess.run(["apdu", Card.selectApplication],
                                                           environment: ["XDG_CONFIG_HOME": home.path, "CARDCTL_READER": "sim:iso7816"])
        #expect(fromEnvironment.status == 0, "\(fromEnvironment)")
        let fromOption = try await CardctlProcess.run(["apdu", Card.selectApplication, "-r", "sim:none"],
                                                      environment: ["CARDCTL_READER": "sim:iso7816"])
        #expect(fromOption.status == 1, "\(fromOption)")
    }

    @Test("a bad cardctl.json is a usage error that names the file", arguments: [
        "{not json", #"["sim"]"#, #"{"reader": 3}"#, #"{"reader": ""}"#, #"{"raeder": "sim"}"#,
    ])
    func badConfigurationFile(json: String) async throws {
        let home = try configurationHome(json)
        defer { Fixtures.removeDirectory(home) }
        let result = try await CardctlProcess.run(["apdu", Card.selectApplication], environment: ["XDG_CONFIG_HOME": home.path])
        #expect(result.status == 2, "\(result)")
        #expect(result.stderr.contains("cardflow/cardctl.json"), "\(result)")
    }

    @Test func daemonWorkNeedsANamedReader() async throws {
        let result = try await CardctlProcess.run(["--socket", "/nonexistent/cardd.sock", "apdu", Card.selectApplication])
        #expect(result.status == 2, "\(result)")
        #expect(result.stderr.contains("--reader ID"), "\(result)")
    }
}
