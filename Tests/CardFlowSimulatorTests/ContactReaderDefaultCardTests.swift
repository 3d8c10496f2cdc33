import CardFlow
import CardFlowCCID
import CardFlowCCIDProtocol
import CardFlowSimulator
import Foundation
import Testing

/// A simulated reader gets a card it can talk to (issue 35, item 6): a reader that has no T=1,
/// or that the host drives character by character, gets a dual-protocol contact card by
/// default, since the contactless card behind a reader runs T=1 only; and what that card answers
/// through CardFlow's driver is what the same card model answers on the plain simulated reader,
/// not bytes of a T=1 block read as T=0.
@Suite("Default card in contact-only readers")
struct ContactReaderDefaultCardTests {
    static let script = try! [
        CommandAPDU(hex: "00A4040007A0000002471001"), CommandAPDU(hex: "00B0000010"), CommandAPDU(hex: "0084000008"),
    ]

    /// The dumps of single devices whose first CCID interface has no T=1 or runs at character
    /// level: the readers the contactless default card cannot reach.
    static func contactOnlyDumps() throws -> [(name: String, path: String)] {
        let directory = try Fixtures.requireCCIDReaders()
        return try FileManager.default.contentsOfDirectory(atPath: directory.path)
            .filter { $0.hasSuffix(".txt") && $0 != "supported_readers.txt" }
            .sorted()
            .compactMap { name in
                let path = directory.appendingPathComponent(name).path
                guard let profiles = try? ReaderProfile.profiles(contentsOfFile: path), profiles.count == 1,
                    let first = profiles[0].interfaces.first,
                    let descriptor = try? CCIDClassDescriptor(bytes: first.classDescriptorBytes),
                    !descriptor.protocols.contains(.t1) || descriptor.exchangeLevel == .character
                else { return nil }
                return (name, path)
            }
    }

    /// The answers of `specification`'s card to the script, through CardFlow's driver.
    static func answers(_ specification: String) async throws -> [String] {
        let setup = try await SimulatorSetup(specification: try SimulatorSpecification(parsing: specification))
        var policy = SessionPolicy()
        policy.connectTimeout = .seconds(5)
        return try await setup.cardFlowReaders()[0].withSession(policy: policy) { session in
            var answers: [String] = []
            for command in script {
                let response = try await session.send(command)
                answers.append(response.data.hexString + " " + response.statusWord.hexString)
            }
            return answers
        }
    }

    @Test("every contact-only fixture reader gets a contact card that answers as the card model does")
    func everyContactOnlyFixture() async throws {
        let dumps = try Self.contactOnlyDumps()
        #expect(dumps.count >= 20, "contact-only dumps: \(dumps.map(\.name))")
        // GET CHALLENGE is seeded: the same seed gives the same bytes on every reader.
        let reference = try await Self.answers("sim:iso7816,seed=7")
        #expect(reference.first?.hasSuffix("9000") == true, "\(reference)")
        var failures: [String] = []
        for dump in dumps {
            let specification = "sim:iso7816,seed=7,profile=\(dump.path)"
            do {
                let setup = try await SimulatorSetup(specification: try SimulatorSpecification(parsing: specification))
                if setup.specification.contactInterface != SimulatorSetup.defaultContactInterface {
                    failures.append(
                        "\(dump.name): no contact card (\(String(describing: setup.specification.contactInterface)))")
                    continue
                }
                let answers = try await Self.answers(specification)
                if answers != reference { failures.append("\(dump.name): \(answers), expected \(reference)") }
            } catch {
                failures.append("\(dump.name): \(error)")
            }
        }
        #expect(failures.isEmpty, "\(failures.count) of \(dumps.count) failed: \(failures.prefix(8))")
    }

    @Test("a reader with T=1 keeps the contactless card, and contact= decides over the default")
    func explicitChoicesWin() async throws {
        let directory = try Fixtures.requireCCIDReaders()
        let picc = directory.appendingPathComponent("ACR122U_PICC.txt").path
        let t0Only = directory.appendingPathComponent("Gemalto_SG.txt").path
        let contactless = try await SimulatorSetup(
            specification: try SimulatorSpecification(parsing: "sim:iso7816,profile=\(picc)"))
        #expect(contactless.specification.contactInterface == nil)
        let t0Card = try await SimulatorSetup(
            specification: try SimulatorSpecification(parsing: "sim:iso7816,contact=t0,profile=\(t0Only)"))
        #expect(t0Card.specification.contactInterface?.protocols == [0])
        let kept = try await SimulatorSetup(
            specification: try SimulatorSpecification(parsing: "sim:iso7816,contact=none,profile=\(t0Only)"))
        #expect(kept.specification.contactInterface == nil)
        #expect(kept.specification.contactlessCard)
    }

    @Test("a contactless card in a T=0-only reader is a mute card, not garbage")
    func contactlessCardInAT0OnlyReaderIsMute() async throws {
        let directory = try Fixtures.requireCCIDReaders()
        for name in ["Gemalto_SG.txt", "ANCUD_CCID_USB_Reader_RNG.txt"] {
            let path = directory.appendingPathComponent(name).path
            await #expect(throws: (any Error).self, "\(name)") {
                _ = try await Self.answers("sim:iso7816,contact=none,profile=\(path)")
            }
        }
    }

    @Test(
        "contact=none takes no contact options and only the cards that have a contact interface",
        arguments: ["sim:iso7816,contact=none,ta1=11", "sim:iso7816,ta1=11,contact=none", "sim:desfire,contact=none"])
    func contactNoneIsChecked(selector: String) {
        #expect(throws: SimulatorSpecificationError.self) { try SimulatorSpecification(parsing: selector) }
    }
}
