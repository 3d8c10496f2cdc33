import CardFlow
import CardFlowCCID
import CardFlowCCIDProtocol
import CardFlowSimulator
import Foundation
import Testing

/// Every fixture dump of a multi-slot reader (bMaxSlotIndex > 0) simulated with `profile=`:
/// one CardFlow reader per slot, and APDUs exchanged on each.
@Suite("Multi-slot reader profiles")
struct MultiSlotProfileTests {
    static let select = try! CommandAPDU(hex: "00A4040007A0000002471001")

    /// The dumps of single devices whose interfaces include a multi-slot one.
    static func multiSlotDumps() throws -> [(name: String, path: String, profile: ReaderProfile)] {
        let directory = try Fixtures.requireCCIDReaders()
        return try FileManager.default.contentsOfDirectory(atPath: directory.path)
            .filter { $0.hasSuffix(".txt") && $0 != "supported_readers.txt" }
            .sorted()
            .compactMap { name in
                let path = directory.appendingPathComponent(name).path
                guard let profiles = try? ReaderProfile.profiles(contentsOfFile: path), profiles.count == 1,
                    profiles[0].interfaces.contains(where: { $0.bMaxSlotIndex > 0 })
                else { return nil }
                return (name, path, profiles[0])
            }
    }

    @Test("each multi-slot fixture lists one reader per slot and exchanges APDUs on each")
    func everyMultiSlotFixture() async throws {
        let dumps = try Self.multiSlotDumps()
        #expect(dumps.count == 44, "multi-slot dumps: \(dumps.map(\.name))")
        var failures: [String] = []
        var slotsExercised = 0
        for dump in dumps {
            // A reader that speaks only T=0 (SIM readers) gets contact cards that run it; the
            // others contactless cards, as the simulator's default.
            let t0Only = dump.profile.interfaces.allSatisfy { $0.dwProtocols & 0x3 == 0x1 }
            let card = t0Only ? "iso7816,contact=t0" : "iso7816"
            let setup = try await SimulatorSetup(
                specification: try SimulatorSpecification(parsing: "sim:\(card),profile=\(dump.path)"))
            // Cards in every slot of every interface (the setup fills the first interface's).
            for (index, interface) in setup.readers.enumerated() {
                for slot in 0..<interface.descriptor.slotCount where await interface.reader.card(slot: slot) == nil {
                    let card = try SimulatorSetup.makeCard(
                        .iso7816, seed: UInt64(100 + index * 10 + slot), specification: setup.specification)
                    if let card { await interface.reader.insert(card, slot: slot) }
                }
            }
            var policy = SessionPolicy()
            policy.connectTimeout = .seconds(2)
            let readers = setup.cardFlowReaders()
            let expectedIDs = setup.readers.enumerated().flatMap { index, interface in
                let count = interface.descriptor.slotCount
                return count == 1 ? ["sim:\(index)"] : (0..<count).map { "sim:\(index)/\($0)" }
            }
            if readers.map(\.info.id) != expectedIDs {
                failures.append("\(dump.name): readers \(readers.map(\.info.id)), expected \(expectedIDs)")
                continue
            }
            for reader in readers where reader.ccid?.driver.descriptor.slotCount ?? 1 > 1 {
                do {
                    let statusWord = try await reader.withSession(policy: policy) { session in
                        try await session.send(Self.select).statusWord.rawValue
                    }
                    if statusWord != 0x9000 {
                        failures.append(
                            "\(dump.name) \(reader.info.id): SW \(String(statusWord, radix: 16, uppercase: true))")
                    }
                    slotsExercised += 1
                } catch {
                    failures.append(
                        "\(dump.name) \(reader.info.id) (\(reader.info.details["exchangeLevel"] ?? "?")): \(error)")
                }
            }
        }
        #expect(failures.isEmpty, "\(failures.count) failures: \(failures.prefix(10))")
        #expect(slotsExercised >= 100)
    }
}
