import CardFlowCCIDProtocol
import CardFlowSimulator
import Testing

/// A TPDU reader reads a T=1 block from the card by NAD PCB LEN and the EDC length that
/// SetParameters set (bmTCCKST1 bit 0, CCID rev 1.1 §6.1.7): the simulated one does too, so a
/// host that forgets to say CRC fails with a CRC card instead of passing by luck.
@Suite struct TPDUReaderEDCFramingTests {
    /// A powered TPDU reader (no automatic parameter negotiation) with a T=1-only CRC card,
    /// after SetParameters with `tcckst`; returns the card's answer to S(IFS request 254).
    func answerToIFSRequest(tcckst: UInt8) async throws -> CCIDResponse {
        let reader = VirtualCCIDReader(configuration: .level(.tpdu))
        await reader.insert(
            ISO7816Card(seed: 1, contactInterface: ContactInterface(protocols: [1], ta1: nil, errorDetection: .crc)))
        var sequence: UInt8 = 0
        func send(_ kind: CCIDCommand.Kind) async throws -> CCIDResponse {
            sequence &+= 1
            try await reader.receiveBulkOut(CCIDCommand(slot: 0, sequence: sequence, kind: kind).encoded())
            return try CCIDResponse(decoding: try await reader.nextBulkIn(maxLength: 1_024, timeout: .seconds(1)))
        }
        _ = try await send(.iccPowerOn(.automatic))
        let parameters = CCIDProtocolParameters.t1(
            findexDindex: 0x11, tcckst: tcckst, guardTime: 0, waitingIntegers: 0x4D,
            clockStop: 0, ifsc: 0xFE, nad: 0)
        #expect(try await send(.setParameters(parameters)).slotError == nil)
        let request: [UInt8] = [0x00, 0xC1, 0x01, 0xFE]
        return try await send(
            .xfrBlock(
                blockWaitingTimeMultiplier: 0, levelParameter: 0,
                data: request + T1Checksum.crc.compute(request)))
    }

    @Test func setToCRCTheReaderReturnsTheWholeBlock() async throws {
        let answer = try await answerToIFSRequest(tcckst: 0x11)
        let response: [UInt8] = [0x00, 0xE1, 0x01, 0xFE]
        #expect(answer.kind == .dataBlock(chainParameter: 0, data: response + T1Checksum.crc.compute(response)))
    }

    @Test func setToLRCTheReaderStopsOneByteShort() async throws {
        let answer = try await answerToIFSRequest(tcckst: 0x10)
        let response: [UInt8] = [0x00, 0xE1, 0x01, 0xFE]
        // LEN 1 + one EDC byte: the second CRC byte stays on the line.
        #expect(
            answer.kind == .dataBlock(chainParameter: 0, data: response + T1Checksum.crc.compute(response).prefix(1)))
    }
}
