import CardFlow
import Testing

/// The part 3 transparent-exchange commands against those a real ACS ACR1552 took (NXP community
/// thread 2093136, also `Tests/Fixtures/card-recordings/icode-sli-acr1552-transparent-nxp-community.apdu`).
@Suite("PC/SC part 3 transparent exchange")
struct PCSCTransparentExchangeTests {
    @Test("start, switch to ISO 15693 layer 3 and end are the recorded application's bytes")
    func sessionCommands() throws {
        #expect(PCSCTransparentExchange.startSession == (try CommandAPDU(hex: "FF C2 00 00 02 81 00 00")))
        let iso15693Layer3 = PCSCTransparentExchange.switchProtocol(rf: 0x02, layer: 0x03)
        #expect(iso15693Layer3 == (try CommandAPDU(hex: "FF C2 00 02 04 8F 02 02 03")))
        #expect(PCSCTransparentExchange.endSession == (try CommandAPDU(hex: "FF C2 00 00 02 82 00 00")))
    }

    @Test("the timer object: the thread's 1 s, microseconds least significant byte first, clamped to four bytes")
    func timerObject() {
        #expect(PCSCTransparentExchange.timerObject(.seconds(1)) == [0x5F, 0x46, 0x04, 0x40, 0x42, 0x0F, 0x00])
        #expect(PCSCTransparentExchange.timerObject(.milliseconds(20)) == [0x5F, 0x46, 0x04, 0x20, 0x4E, 0x00, 0x00])
        #expect(PCSCTransparentExchange.timerObject(.seconds(10_000)) == [0x5F, 0x46, 0x04, 0xFF, 0xFF, 0xFF, 0xFF])
        #expect(PCSCTransparentExchange.timerObject(.seconds(-1)) == [0x5F, 0x46, 0x04, 0x00, 0x00, 0x00, 0x00])
        let oneSecond = PCSCTransparentExchange.timerObject(microseconds: 1_000_000)
        #expect(oneSecond == PCSCTransparentExchange.timerObject(.seconds(1)))
    }
}
