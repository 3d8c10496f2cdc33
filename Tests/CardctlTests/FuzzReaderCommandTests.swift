import Foundation
import Testing

/// `--reader sim:fuzz,…`: cardctl against a hostile simulated card ends every command with a
/// result or a clear error and an exit code of its table (0, 1, 2 or 3), never a crash or a hang.
@Suite("cardctl against the fuzz card")
struct FuzzReaderCommandTests {
    static let commands: [[String]] = [
        ["ndef", "read"],
        ["ndef", "write", "--uri", "https://example.org"],
        ["iso15693", "info"],
        ["iso15693", "read"],
        ["apdu", "00A4040007D2760000850101", "00B0000002"],
        ["desfire", "version"],
    ]

    @Test(arguments: 1...6)
    func everyCommandEndsWithAnExitCodeOfItsTable(seed: Int) async throws {
        let wraps = ["", ",wrap=ndef4", ",wrap=type2", ",wrap=iso15693", ",wrap=iso7816", ",wrap=desfire"]
        let reader = "sim:fuzz,seed=\(seed)\(wraps[seed % wraps.count]),hostile=40,sticky=20"
        for command in Self.commands {
            let result = try await CardctlProcess.run(["--reader", reader] + command)
            #expect([0, 1, 2, 3].contains(result.status), "\(result)")
            if result.status != 0 { #expect(result.stderr.contains("error"), "\(result)") }
        }
    }

    @Test func helpNamesTheFuzzCard() async throws {
        let result = try await CardctlProcess.run(["list", "--help"])
        #expect(result.stdout.contains("fuzz"), "\(result)")
    }

    @Test func fuzzOptionsOnOtherCardsAreUsageErrors() async throws {
        let result = try await CardctlProcess.run(["--reader", "sim:ndef4,hostile=20", "ndef", "read"])
        #expect(result.status == 2, "\(result)")
    }
}
