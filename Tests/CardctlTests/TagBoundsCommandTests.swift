import Foundation
import Testing

/// Numbers from the command line that no tag can address are usage errors (exit 2), found
/// before any APDU; each of these once crashed cardctl (a trap in the ISO 15693 client).
@Suite("cardctl tag commands with out-of-range numbers")
struct TagBoundsCommandTests {
    @Test(arguments: [
        ["iso15693", "read", "--count=-1"],
        ["iso15693", "read", "--count", "0"],
        ["iso15693", "read", "--block", "256"],
        ["iso15693", "read", "--block=-1"],
        ["iso15693", "write", "--block", "300", "--data", "01020304"],
        ["iso15693", "write", "--block=-1", "--data", "01020304"],
    ])
    func iso15693NumbersOutsideTheAddressRangeAreUsageErrors(_ arguments: [String]) async throws {
        let result = try await CardctlProcess.run(["--reader", "sim:iso15693"] + arguments)
        #expect(result.status == 2, "\(result)")
        #expect(result.stderr.contains("block") || result.stderr.contains("count"), "\(result)")
    }

    /// A write that starts in range but runs past block 255 is refused by the client with a
    /// typed error (a card error, exit 1), not a crash.
    @Test func iso15693WriteRunningPastBlock255() async throws {
        let result = try await CardctlProcess.run([
            "--reader", "sim:iso15693,capacity=1024", "iso15693", "write", "--block", "255",
            "--data", "0102030405060708",
        ])
        #expect(result.status == 1, "\(result)")
        #expect(result.stderr.contains("255"), "\(result)")
    }
}
