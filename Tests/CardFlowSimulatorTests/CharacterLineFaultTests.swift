import CardFlowCCIDProtocol
import Testing

@testable import CardFlowSimulator
@testable import CardFlowSimulatorCards

/// What each I/O line slip does to the characters a card sends (ISO/IEC 7816-3 §10.3.3 for the
/// T=0 procedure bytes, §11.3 for the T=1 block), byte for byte, and that a character-level
/// reader shows it once.
@Suite struct CharacterLineFaultTests {
    // READ BINARY (INS B0) of 2 bytes: ACK B0, the data, 90 00.
    static let caseTwo: [UInt8] = [0xB0, 0x07, 0x08, 0x90, 0x00]

    @Test func t0Slips() {
        func apply(
            _ fault: CharacterLineFault, _ characters: [UInt8] = CharacterLineFaultTests.caseTwo,
            endsWithStatusWord: Bool = true
        ) -> [UInt8]? {
            fault.applied(toT0: characters, instruction: 0xB0, endsWithStatusWord: endsWithStatusWord)
        }
        #expect(apply(.procedureByteLost) == [0x07, 0x08, 0x90, 0x00])
        #expect(apply(.extraByteBeforeProcedureByte(0x42)) == [0x42, 0xB0, 0x07, 0x08, 0x90, 0x00])
        #expect(apply(.procedureByteGarbled(0x61)) == [0x61, 0x07, 0x08, 0x90, 0x00])
        #expect(apply(.nullFlood(count: 3)) == [0x60, 0x60, 0x60, 0xB0, 0x07, 0x08, 0x90, 0x00])
        // The first procedure byte after NULLs is the ACK: INS B0 becomes B1, INS ⊕ FF 4F becomes 4E.
        #expect(apply(.wrongAcknowledge, [0x60, 0xB0, 0x07, 0x90, 0x00]) == [0x60, 0xB1, 0x07, 0x90, 0x00])
        #expect(
            apply(.wrongAcknowledge, [0x4F, 0x07, 0x4F, 0x08, 0x90, 0x00]) == [0x4E, 0x07, 0x4F, 0x08, 0x90, 0x00])
        // Nothing to act on: an answer of SW1 SW2 alone has no ACK; an ACK for command data no SW.
        #expect(apply(.wrongAcknowledge, [0x6D, 0x00]) == nil)
        #expect(apply(.statusWordTruncated) == [0xB0, 0x07, 0x08, 0x90])
        #expect(apply(.statusWordTruncated, [0xD6], endsWithStatusWord: false) == nil)
        // T=1 slips leave T=0 characters alone.
        #expect(apply(.wrongLength(mask: 1)) == nil && apply(.blockByteLost(at: 0)) == nil)
    }

    @Test func t1Slips() {
        // I-block N(S) 0 with 90 00 and its LRC: 00 00 02 90 00 92.
        let block: [UInt8] = [0x00, 0x00, 0x02, 0x90, 0x00, 0x92]
        #expect(CharacterLineFault.blockByteLost(at: 2).applied(toT1Block: block) == [0x00, 0x00, 0x90, 0x00, 0x92])
        // Positions wrap around the block: 8 is 2 again.
        #expect(CharacterLineFault.blockByteLost(at: 8).applied(toT1Block: block) == [0x00, 0x00, 0x90, 0x00, 0x92])
        #expect(
            CharacterLineFault.wrongLength(mask: 0x03).applied(toT1Block: block) == [
                0x00, 0x00, 0x01, 0x90, 0x00, 0x92,
            ])
        #expect(
            CharacterLineFault.wrongLength(mask: 0).applied(toT1Block: block) == [0x00, 0x00, 0x03, 0x90, 0x00, 0x92])
        #expect(CharacterLineFault.nullFlood(count: 2).applied(toT1Block: block) == nil)
    }

    @Test func aCharacterLevelReaderShowsTheSlipOnce() async throws {
        var configuration = VirtualReaderConfiguration.level(.character)
        configuration.descriptor.protocols = [.t0, .t1]
        let reader = VirtualCCIDReader(configuration: configuration)
        await reader.insert(APDUTestCard(seed: 1, contactInterface: .t0Only(ta1: nil)))
        var sequence: UInt8 = 0
        func xfr(_ data: [UInt8], expect: UInt16) async throws -> CCIDResponse {
            sequence &+= 1
            let command = CCIDCommand(
                slot: 0, sequence: sequence,
                kind: .xfrBlock(blockWaitingTimeMultiplier: 0, levelParameter: expect, data: data))
            try await reader.receiveBulkOut(command.encoded())
            return try CCIDResponse(decoding: try await reader.nextBulkIn(maxLength: 1_024, timeout: .seconds(1)))
        }
        sequence &+= 1
        try await reader.receiveBulkOut(
            CCIDCommand(slot: 0, sequence: sequence, kind: .iccPowerOn(.automatic)).encoded())
        _ = try await reader.nextBulkIn(maxLength: 1_024, timeout: .seconds(1))
        // PATTERN of 2 bytes (80 20 00 00 02): ACK 20, 00 01, 90 00; with a NULL flood of 3 first.
        await reader.inject(.characterLine(.nullFlood(count: 3)))
        let flooded = try await xfr([0x80, 0x20, 0x00, 0x00, 0x02], expect: 8)
        #expect(
            flooded.kind == .dataBlock(chainParameter: 0, data: [0x60, 0x60, 0x60, 0x20, 0x00, 0x01, 0x90, 0x00]),
            "\(flooded)")
        let clean = try await xfr([0x80, 0x20, 0x00, 0x00, 0x02], expect: 5)
        #expect(clean.kind == .dataBlock(chainParameter: 0, data: [0x20, 0x00, 0x01, 0x90, 0x00]), "\(clean)")
        #expect(await reader.characterLineFaultsShown == ["nullFlood": 1])
    }
}
