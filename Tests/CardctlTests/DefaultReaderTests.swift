import Foundation
import Testing

/// Without --reader: CARDCTL_READER, then cardctl.json, then the first USB reader; never a
/// simulated card nobody asked for.
@Suite("cardctl default reader")
struct DefaultReaderTests {
    /// The machine's own USB, not the umockdev testbed that Scripts/test.sh runs the tests in
    /// (where other suites plug emulated readers in and out).
    static let machineUSB: [String: String?] = ["UMOCKDEV_DIR": nil, "LD_PRELOAD": nil]

    /// A configuration home whose cardflow/cardctl.json holds `json`.
    private func configurationHome(_ json: String) throws -> URL {
        let home = try Fixtures.temporaryDirectory()
        let folder = home.appendingPathComponent("cardflow")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try Data(json.utf8).write(to: folder.appendingPathComponent("cardctl.json"))
        return home
    }

    @Test(
        "nothing chosen: cardctl uses USB as --reader usb would; without a USB reader, exit 3 and how to pick the simulator"
    )
    func nothingChosen() async throws {
        let usb = try await CardctlProcess.run(["list", "--json", "--reader", "usb"], environment: Self.machineUSB)
        let byDefault = try await CardctlProcess.run(["list", "--json"], environment: Self.machineUSB)
        let found = try usb.status == 0 ? Fixtures.jsonObjects(usb.stdout) : []
        guard usb.status == 0, found.isEmpty else {
            // A reader is plugged in (or USB is unusable): the default is --reader usb.
            #expect(byDefault.status == usb.status, "\(byDefault)\n\(usb)")
            #expect(byDefault.stdout == usb.stdout, "\(byDefault)\n\(usb)")
            return
        }
        for arguments in [["apdu", Card.selectApplication], ["list"], ["list", "--json"], ["shell"]] {
            let result = try await CardctlProcess.run(arguments, environment: Self.machineUSB)
            #expect(result.status == 3, "\(result)")
            #expect(result.stderr.contains("no USB CCID reader found"), "\(result)")
            #expect(result.stderr.contains("--reader sim"), "\(result)")
            #expect(result.stdout.isEmpty, "no simulated card answers: \(result)")
        }
    }

    @Test func environmentVariableChoosesTheReader() async throws {
        let result = try await CardctlProcess.run(
            ["apdu", Card.selectApplication], environment: ["CARDCTL_READER": "sim:iso7816"])
        #expect(result.status == 0, "\(result)")
        #expect(result.stdoutLines == ["\(Card.applicationFCI) 9000"], "\(result)")
    }

    @Test func configurationFileChoosesTheReader() async throws {
        let home = try configurationHome(#"{"reader": "sim:none"}"#)
        defer { Fixtures.removeDirectory(home) }
        let result = try await CardctlProcess.run(
            ["apdu", Card.selectApplication], environment: ["XDG_CONFIG_HOME": home.path])
        #expect(result.status == 1, "sim:none has no card: \(result)")
        #expect(result.stderr.contains("no card"), "\(result)")
    }

    @Test func optionBeatsEnvironmentBeatsConfigurationFile() async throws {
        let home = try configurationHome(#"{"reader": "sim:none"}"#)
        defer { Fixtures.removeDirectory(home) }
        let fromEnvironment = try await CardctlProcess.run(
            ["apdu", Card.selectApplication],
            environment: ["XDG_CONFIG_HOME": home.path, "CARDCTL_READER": "sim:iso7816"])
        #expect(fromEnvironment.status == 0, "\(fromEnvironment)")
        let fromOption = try await CardctlProcess.run(
            ["apdu", Card.selectApplication, "-r", "sim:none"],
            environment: ["CARDCTL_READER": "sim:iso7816"])
        #expect(fromOption.status == 1, "\(fromOption)")
    }

    @Test(
        "a bad cardctl.json is a usage error that names the file",
        arguments: [
            "{not json", #"["sim"]"#, #"{"reader": 3}"#, #"{"reader": ""}"#, #"{"raeder": "sim"}"#,
        ])
    func badConfigurationFile(json: String) async throws {
        let home = try configurationHome(json)
        defer { Fixtures.removeDirectory(home) }
        let result = try await CardctlProcess.run(
            ["apdu", Card.selectApplication], environment: ["XDG_CONFIG_HOME": home.path])
        #expect(result.status == 2, "\(result)")
        #expect(result.stderr.contains("cardflow/cardctl.json"), "\(result)")
    }

    @Test func daemonWorkNeedsANamedReader() async throws {
        let result = try await CardctlProcess.run([
            "--socket", "/nonexistent/cardd.sock", "apdu", Card.selectApplication,
        ])
        #expect(result.status == 2, "\(result)")
        #expect(result.stderr.contains("--reader ID"), "\(result)")
    }
}
