import Foundation
import Testing

/// `cardctl signal` on simulated USB CCID readers: the simulated ACR1252U takes its LED and buzzer
/// escape commands, a reader of no known family and a blink the ACR1252U cannot show exit 2.
@Suite("cardctl signal on CCID readers")
struct SignalCommandTests {
    static func simulated(_ profile: String, card: String = "none") -> String {
        "sim:\(card),profile=\(Fixtures.readerDump(profile + ".txt").path)"
    }

    @Test("the simulated ACR1252U shows success and failure, with no card on it")
    func acr1252u() async throws {
        let reader = Self.simulated("ACS_ACR1252_Dual_Reader")
        for (flag, expected) in [("--success", "light green, beep short"), ("--failure", "light red, beep long")] {
            let result = try await CardctlProcess.run(["--reader", reader, "signal", flag])
            #expect(result.status == 0, "\(result)")
            #expect(result.stdout.contains(expected), "\(result)")
        }
    }

    @Test("a blink on the ACR1252U and any signal on a reader of no known family (Identiv) exit 2, saying why")
    func unsupported() async throws {
        let blink = try await CardctlProcess.run([
            "--reader", Self.simulated("ACS_ACR1252_Dual_Reader"), "signal", "--light", "flash",
        ])
        #expect(blink.status == 2, "\(blink)")
        #expect(blink.stderr.contains("cannot blink"), "\(blink)")
        let unknown = try await CardctlProcess.run([
            "--reader", Self.simulated("Identiv_uTrust_3700_F_CL_Reader"), "signal", "--success",
        ])
        #expect(unknown.status == 2, "\(unknown)")
        #expect(unknown.stderr.contains("has no signal"), "\(unknown)")
    }
}
