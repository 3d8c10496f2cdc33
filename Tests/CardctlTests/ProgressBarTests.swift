import CardFlowProcessTestSupport
import Foundation
import Testing

/// The progress bar appears only on a terminal (`script` gives the child a pseudo-terminal).
@Suite("cardctl progress bar")
struct ProgressBarTests {
    static let provision = [
        "desfire", "provision", "--aid", "010203", "--file", "1", "--size", "64", "--comm", "enc",
        "--key", "00112233445566778899AABBCCDDEEFF", "--text", "hi",
    ]

    @Test func aTerminalGetsABarThatIsErasedAtTheEnd() async throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/script") else {
            if ProcessInfo.processInfo.environment["CI"] == "true" {
                Issue.record("/usr/bin/script (bsdutils) is missing")
            } else {
                try Test.cancel("/usr/bin/script (bsdutils) is not installed")
            }
            return
        }
        let cardctl = try CardctlExecutable.locate().path
        let command = ([cardctl, "--reader", "sim:desfire"] + Self.provision).map { "'\($0)'" }.joined(separator: " ")
        let run = try await ChildProcess.run("/usr/bin/script", ["-qec", command, "/dev/null"])
        let text = run.outputText
        #expect(run.status == 0, "\(run)")
        #expect(text.contains("] 100% 7/7 read back"), "\(text)")
        #expect(text.contains("\r\u{1B}[K"), "the bar is erased before the result line")
        #expect(text.contains("provisioned 010203 file 1"))
        #expect(!text.contains("cardctl: step 1/7"), "on a terminal, steps are the bar, not lines")
    }

    @Test func aPipeGetsLinesAndNoBar() async throws {
        let result = try await CardctlProcess.run(["--reader", "sim:desfire"] + Self.provision)
        #expect(result.status == 0, "\(result)")
        #expect(result.stderr.contains("cardctl: step 1/7 authenticate PICC started"))
        #expect(!result.stderr.contains("\u{1B}[K"))
        #expect(!result.stderr.contains("[#"))
    }
}
