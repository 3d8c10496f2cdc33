import CardFlowCCIDProtocol
import CardFlowSimulator
import Testing

/// The storage a host lends with a command (``USBBulkInRead/storage``) carries the simulated
/// reader's answer to it: no array of the reader's own per answer (issue 40's allocation count
/// for TPDU T=1), and the bytes are those of an answer written afresh.
@Suite struct LentAnswerStorageTests {
    static let powerOn = CCIDCommand(slot: 0, sequence: 1, kind: .iccPowerOn(.automatic)).encoded()

    func poweredReader() async -> (VirtualCCIDReader, InMemoryUSBTransport) {
        let reader = VirtualCCIDReader(configuration: .level(.tpdu))
        await reader.insert(ISO7816Card(seed: 1))
        return (reader, InMemoryUSBTransport(reader: reader))
    }

    func address(of bytes: [UInt8]) -> UInt? {
        bytes.withUnsafeBufferPointer { $0.baseAddress.map { UInt(bitPattern: $0) } }
    }

    @Test func theAnswerIsWrittenIntoTheLentStorage() async throws {
        let (reader, transport) = await poweredReader()
        let lent = [UInt8](repeating: 0xEE, count: 300)
        let lentAddress = address(of: lent)
        try await transport.bulkOut(
            Self.powerOn, timeout: .seconds(1),
            readingAhead: USBBulkInRead(maxLength: 1_024, timeout: .seconds(1), storage: consume lent))
        let answer = try await transport.bulkIn(maxLength: 1_024, timeout: .seconds(1))
        #expect(address(of: answer) == lentAddress)
        #expect(answer == (try await plainAnswer()))
        let response = try CCIDResponse(decoding: answer)
        #expect(response.sequence == 1 && response.slotError == nil)
        #expect(await reader.commandsReceived == 1)
    }

    /// The answer to the power-on without lent storage.
    func plainAnswer() async throws -> [UInt8] {
        let (_, plain) = await poweredReader()
        try await plain.bulkOut(Self.powerOn, timeout: .seconds(1))
        return try await plain.bulkIn(maxLength: 1_024, timeout: .seconds(1))
    }

    /// Storage too small for the answer, none at all, or still held by the host: the answer is
    /// the same bytes, and the host's array is never written.
    @Test func anyStorageGivesTheSameAnswer() async throws {
        var answers: [[UInt8]] = []
        let held = [UInt8](repeating: 0xEE, count: 300)
        for storage in [[0xEE], [], held] {
            let (_, transport) = await poweredReader()
            try await transport.bulkOut(
                Self.powerOn, timeout: .seconds(1),
                readingAhead: USBBulkInRead(maxLength: 1_024, timeout: .seconds(1), storage: storage))
            answers.append(try await transport.bulkIn(maxLength: 1_024, timeout: .seconds(1)))
        }
        let expected = try await plainAnswer()
        #expect(!expected.isEmpty)
        #expect(answers == [expected, expected, expected])
        #expect(held == [UInt8](repeating: 0xEE, count: 300))
    }

    /// A read is its length and time: the storage lent with it does not make it another read.
    @Test func theLentStorageIsNotPartOfTheRead() {
        let plain = USBBulkInRead(maxLength: 271, timeout: .seconds(5))
        let lending = USBBulkInRead(maxLength: 271, timeout: .seconds(5), storage: [1, 2, 3])
        #expect(plain == lending)
        #expect(Set([plain, lending]).count == 1)
        #expect(plain != USBBulkInRead(maxLength: 270, timeout: .seconds(5), storage: [1, 2, 3]))
        #expect(plain != USBBulkInRead(maxLength: 271, timeout: .seconds(4)))
    }
}
