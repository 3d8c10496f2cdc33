import CardFlow
import CardFlowSimulator
import Foundation

/// Simulated readers for the client tests: a reader profile from the vendored descriptor dumps
/// (`Tests/Fixtures/ccid-readers`) with a MIFARE Classic card on it, through `sim:` selectors.
enum ClassicSimulatedReaders {
    static let fixtures = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Fixtures/ccid-readers")

    /// ACS ACR1252U (072F:223B), Identiv uTrust 3700 F (04E6:5790), HID OMNIKEY 5422 (076B:5422).
    static let acsProfile = "ACS_ACR1252_Dual_Reader.txt"
    static let identivProfile = "Identiv_uTrust_3700_F_CL_Reader.txt"
    static let omnikeyProfile = "HID_OMNIKEY_5422.txt"

    /// The CardFlow reader and the simulated reader for `card` (`classic1k`, `classic4k`) on the
    /// reader the profile file describes.
    static func open(card: String = "classic1k", profile: String) async throws -> (Reader, VirtualCCIDReader) {
        let path = fixtures.appendingPathComponent(profile).path
        let setup = try await SimulatorSetup(
            specification: try SimulatorSpecification(parsing: "sim:\(card),profile=\(path)"))
        return (setup.cardFlowReaders()[0], setup.readers[0].reader)
    }
}
