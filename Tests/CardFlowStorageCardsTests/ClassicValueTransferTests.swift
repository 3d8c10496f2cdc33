import CardFlow
import Testing

@testable import CardFlowSimulator
@testable import CardFlowSimulatorCards
@testable import CardFlowStorageCards

/// The value-transfer flow (an e-purse top-up or payment) end to end on the simulated card: the
/// balance moves exactly once whichever APDU the card leaves after, on each reader family.
@Suite("MIFARE Classic value transfer flow")
struct ClassicValueTransferTests {
    static let keyB = try! ClassicKey([0xB0, 0xB1, 0xB2, 0xB3, 0xB4, 0xB5])

    static var policy: SessionPolicy {
        var policy = SessionPolicy()
        policy.connectTimeout = .seconds(2)
        policy.cardReturnTimeout = .seconds(5)
        return policy
    }

    /// Sector 3 as a purse: block 12 holds `balance`, block 13 is the backup; data blocks under
    /// condition 110 (key B writes and increments, A|B decrement) and the trailer under 011.
    static func purse(profile: String, balance: Int32) async throws -> (Reader, VirtualCCIDReader) {
        let (reader, virtual) = try await ClassicSimulatedReaders.open(profile: profile)
        try await reader.withSession { session in
            let card = try await ClassicClient.open(on: session)
            try await card.authenticate(sector: 3, keyType: .a, key: .transport)
            try await card.writeValue(balance, block: 12)
            let value = try #require(ClassicAccessCondition(rawValue: 0b110))
            let trailer = try ClassicSectorTrailer(
                keyA: .transport,
                accessBits: ClassicAccessBits(
                    dataBlocks: [value, value, value], trailer: #require(ClassicAccessCondition(rawValue: 0b011))),
                generalPurposeByte: 0x69, keyB: keyB)
            try await card.writeTrailer(trailer, sector: 3)
        }
        return (reader, virtual)
    }

    /// The value and backup blocks (the backup nil while it is no value block yet). Waits for a
    /// card lifted by the flow's last APDU to come back.
    static func balances(_ reader: Reader) async throws -> (Int32, Int32?) {
        try await reader.withSession(policy: policy) { session in
            let card = try await ClassicClient.open(on: session)
            try await card.authenticate(sector: 3, keyType: .b, key: keyB)
            let value = try await card.readValueBlock(12).value
            return (value, try? await card.readValueBlock(13).value)
        }
    }

    static func topUp(_ amount: Int32, maximum: Int32 = 10_000) -> ClassicValueTransfer {
        ClassicValueTransfer(
            block: 12, backupBlock: 13, keyType: .b, key: keyB, operation: .topUp(amount), maximum: maximum)
    }

    @Test(
        "a top-up on each reader family",
        arguments: [
            ClassicSimulatedReaders.acsProfile, ClassicSimulatedReaders.identivProfile,
            ClassicSimulatedReaders.omnikeyProfile,
        ])
    func topUpOnEachFamily(profile: String) async throws {
        let (reader, _) = try await Self.purse(profile: profile, balance: 700)
        let result = try await reader.run(Self.topUp(250).flow(), policy: Self.policy).value
        #expect(result.before == 700 && result.after == 950 && result.uid.count == 4)
        #expect(try await Self.balances(reader) == (950, 950))
        let spend = ClassicValueTransfer(
            block: 12, backupBlock: 13, keyType: .b, key: Self.keyB, operation: .spend(951))
        await #expect(throws: ClassicValueTransferError.insufficientBalance(balance: 950, amount: 951)) {
            do { _ = try await reader.run(spend.flow(), policy: Self.policy).value } catch let error as FlowError {
                throw error.underlying
            }
        }
        #expect(try await Self.balances(reader) == (950, 950))
    }

    /// Unlifted, the flow sends 14 APDUs on the ACS profile (prepare 5, apply 4, commit 5): the
    /// card leaves after each of them in turn and comes back.
    @Test("the balance moves exactly once whichever APDU the card leaves after", arguments: Array(1...14))
    func liftedAnywhere(_ lift: Int) async throws {
        let (reader, virtual) = try await Self.purse(profile: ClassicSimulatedReaders.acsProfile, balance: 100)
        await virtual.liftCard(afterAPDUs: lift, returnAfter: .milliseconds(30))
        let result = try await reader.run(Self.topUp(40).flow(), policy: Self.policy).value
        #expect(result.before == 100 && result.after == 140)
        await virtual.liftCard(afterAPDUs: .max)
        #expect(try await Self.balances(reader) == (140, 140))
    }

    @Test("limits and a balance changed behind the flow's back are refused, the card left as it is")
    func refusals() async throws {
        let (reader, _) = try await Self.purse(profile: ClassicSimulatedReaders.identivProfile, balance: 9_990)
        await #expect(throws: ClassicValueTransferError.limitExceeded(balance: 9_990, amount: 11, maximum: 10_000)) {
            do { _ = try await reader.run(Self.topUp(11).flow(), policy: Self.policy).value } catch let error
                as FlowError
            {
                throw error.underlying
            }
        }
        #expect(try await Self.balances(reader).0 == 9_990)
        // Another terminal spends between prepare and apply (the card leaves this reader, is
        // charged elsewhere and comes back): the flow notices and stops.
        let (purse, virtual) = try await Self.purse(profile: ClassicSimulatedReaders.identivProfile, balance: 9_990)
        let sneaky = Self.topUp(5).flow()
        var policy = Self.policy
        let spent = ClassicValueBlock(value: 9_989, address: 12).bytes
        policy.beforeStep = { gate in
            // Once: the gate is asked again when the interrupted step resumes.
            guard gate.name == "apply", let card = await virtual.card() as? SimulatedMIFAREClassicCard,
                card.blocks[12] != spent, var taken = await virtual.removeCard() as? SimulatedMIFAREClassicCard
            else { return }
            taken.blocks[12] = spent
            await virtual.insert(taken)
        }
        await #expect(throws: ClassicValueTransferError.self) {
            do { _ = try await purse.run(sneaky, policy: policy).value } catch let error as FlowError {
                throw error.underlying
            }
        }
        #expect(try await Self.balances(purse) == (9_989, 9_990))
    }

    @Test func validation() {
        let zero = ClassicValueTransfer(block: 12, backupBlock: 13, keyType: .b, key: Self.keyB, operation: .topUp(0))
        #expect(throws: ClassicValueTransferError.self) { try zero.validate() }
        let same = ClassicValueTransfer(block: 12, backupBlock: 12, keyType: .b, key: Self.keyB, operation: .spend(1))
        #expect(throws: ClassicValueTransferError.self) { try same.validate() }
        #expect(throws: Never.self) { try Self.topUp(1).validate() }
        #expect(throws: ClassicValueTransferError.limitExceeded(balance: .max, amount: 1, maximum: .max)) {
            try ClassicValueTransfer(
                block: 12, backupBlock: 13, keyType: .b, key: Self.keyB, operation: .topUp(1)
            ).target(from: .max)
        }
    }
}
