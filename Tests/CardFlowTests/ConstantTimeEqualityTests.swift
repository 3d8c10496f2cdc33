import CardFlow
import Testing

/// `constantTimeEqual` compares any byte collections: a MAC where it lies in an answer, too.
@Suite struct ConstantTimeEqualityTests {
    @Test func slicesAndArrays() {
        let answer: [UInt8] = [0x10, 0x11, 0x12, 0x68, 0xF2, 0xC2, 0x8C]
        #expect(constantTimeEqual([0x68, 0xF2, 0xC2, 0x8C], answer.suffix(4)))
        #expect(!constantTimeEqual([0x68, 0xF2, 0xC2, 0x8D], answer.suffix(4)))
        #expect(!constantTimeEqual([0x69, 0xF2, 0xC2, 0x8C], answer.suffix(4)))
        #expect(!constantTimeEqual([0x68, 0xF2, 0xC2], answer.suffix(4)))
        #expect(constantTimeEqual([UInt8](), answer.prefix(0)))
        #expect(constantTimeEqual(answer, answer))
    }
}
