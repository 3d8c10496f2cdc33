import Testing

@testable import CardFlowSimulatorUFR

/// The simulated reader's own frame writer: data too long for the length byte become an ERR,
/// never a trap in the simulator.
@Suite("simulated uFR wire format")
struct SimulatedUFRWireFormatTests {
    @Test func dataThatFitTheLengthByteAreSentAndLongerOnesAreABufferOverflow() {
        let largest = UFRWireFormat.response(code: 0x94, ext: [UInt8](repeating: 0xAB, count: 254))
        #expect(Array(largest.prefix(4)) == [0xDE, 0x94, 0xED, 0xFF])
        #expect(largest.count == 7 + 255)
        let tooLong = UFRWireFormat.response(code: 0x94, ext: [UInt8](repeating: 0xAB, count: 255))
        #expect(tooLong == UFRWireFormat.error(0x05))
        #expect(Array(tooLong.prefix(3)) == [0xEC, 0x05, 0xCE])
    }
}
