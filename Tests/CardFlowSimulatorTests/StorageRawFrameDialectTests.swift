import CardFlowSimulator
import Testing

/// The simulated readers' raw-frame routes, byte for byte.
@Suite("Simulated raw-frame pass-through dialects")
struct StorageRawFrameDialectTests {
    @Test("VID:PID picks the route")
    func routes() {
        #expect(StorageRawFrameDialect(vendorID: 0x072F, productID: 0x2200).route == .pn532InCommunicateThru)
        #expect(StorageRawFrameDialect(vendorID: 0x072F, productID: 0x223B).route == .acsDirectTransmit)
        #expect(StorageRawFrameDialect(vendorID: 0x072F, productID: 0x223F).route == .acsDirectTransmit)
        #expect(StorageRawFrameDialect(vendorID: 0x04E6, productID: 0x5790).route == .part3TransparentExchange)
        #expect(StorageRawFrameDialect(vendorID: 0x076B, productID: 0x5422).route == .part3TransparentExchange)
    }

    @Test("ACR122U: D4 42 frames in, D5 43 status out")
    func pn532() {
        var dialect = StorageRawFrameDialect(route: .pn532InCommunicateThru)
        #expect(dialect.instructions == [0x00])
        #expect(dialect.request(from: bytes("FF000000 07 D442 1BFFFFFFFF")) == .frame(bytes("1BFFFFFFFF")))
        #expect(dialect.request(from: bytes("FF000000 03 D44A01")) == .answered(bytes("6300")))
        #expect(dialect.request(from: bytes("FF004800 00")) == .answered(bytes("6300")))
        #expect(dialect.request(from: bytes("FFB00004 10")) == .notRaw)
        #expect(dialect.response(to: .bytes(bytes("1234"))) == bytes("D54300 1234 9000"))
        #expect(dialect.response(to: .fourBits(0x0A)) == bytes("D54300 0A 9000"))
        #expect(dialect.response(to: .silence) == bytes("D54301 9000"))
    }

    @Test("ACR1252U: the frame itself, 63 00 for silence")
    func acsDirect() {
        var dialect = StorageRawFrameDialect(route: .acsDirectTransmit)
        #expect(dialect.request(from: bytes("FF000000 02 3004")) == .frame(bytes("3004")))
        #expect(dialect.request(from: bytes("FF000000 03 3004")) == .answered(bytes("6300")))
        #expect(dialect.response(to: .bytes(bytes("0004"))) == bytes("0004 9000"))
        #expect(dialect.response(to: .fourBits(0x00)) == bytes("00 9000"))
        #expect(dialect.response(to: .silence) == bytes("6300"))
    }

    @Test("part 3: a transceive needs a session; answers carry C0, 92, 96 and 97")
    func part3() {
        var dialect = StorageRawFrameDialect(route: .part3TransparentExchange)
        #expect(dialect.instructions == [0xC2])
        #expect(dialect.request(from: bytes("FFC20001 03 950160 00")) == .answered(bytes("C0030169869000")))
        #expect(dialect.request(from: bytes("FFC20000 02 8100 00")) == .answered(bytes("C0030090009000")))
        #expect(dialect.transparentSessionOpen)
        #expect(dialect.request(from: bytes("FFC20001 03 950160 00")) == .frame([0x60]))
        #expect(dialect.request(from: bytes("FFC20001 0B 5F460440420F00 95023004 00")) == .frame(bytes("3004")))
        let long = [UInt8](repeating: 0xAB, count: 0x90)
        #expect(dialect.request(from: bytes("FFC20001 93 958190") + long + [0x00]) == .frame(long))
        #expect(dialect.request(from: bytes("FFC20001 04 95033004")) == .answered(bytes("6700")))
        #expect(dialect.request(from: bytes("FFC20001 02 9300 00")) == .answered(bytes("C003016A809000")))
        #expect(
            dialect.response(to: .bytes(bytes("0004"))) == bytes("C003009000 96020000 97020004 9000"))
        #expect(dialect.response(to: .fourBits(0x04)) == bytes("C003009000 920104 96020000 970104 9000"))
        #expect(dialect.response(to: .silence) == bytes("C003016401 9000"))
        #expect(dialect.request(from: bytes("FFC20000 02 8200 00")) == .answered(bytes("C0030090009000")))
        #expect(!dialect.transparentSessionOpen)
        _ = dialect.request(from: bytes("FFC20000 02 8100 00"))
        dialect.reset()
        #expect(!dialect.transparentSessionOpen)
    }

    @Test("hostile wrappers never trap")
    func hostile() {
        var generator = SeededGenerator(seed: 7)
        for route in StorageRawFrameDialect.Route.allCases {
            var dialect = StorageRawFrameDialect(route: route)
            for _ in 0..<2000 {
                let count = Int.random(in: 0...12, using: &generator)
                var command = (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }
                if command.count >= 2 {
                    command[0] = 0xFF; command[1] = route == .part3TransparentExchange ? 0xC2 : 0x00
                }
                _ = dialect.request(from: command)
            }
        }
    }
}
