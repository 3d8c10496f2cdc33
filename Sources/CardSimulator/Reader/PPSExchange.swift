/// The card's side of a protocol and parameters selection (PPS, ISO/IEC 7816-3 §9) at a TPDU
/// reader, where the host sends the request through XfrBlock right after the ATR.
///
/// A host must use PPS to leave the first protocol an ATR offers: the simulated cards' ATR
/// `3B 8n 80 01 …` offers T=0 (TD1 = `80`) before T=1 (TD2 = `01`), so pcsc-lite's CCID driver
/// asks for T=1 with `FF 01 FE` on readers that do not negotiate PPS themselves.
///
/// The request is `PPSS = FF`, `PPS0` (b5–b7 announce PPS1–PPS3, b1–b4 the protocol), the
/// announced bytes and `PCK` (the XOR of all bytes is zero). A T=1 block never starts with
/// `FF` (NAD bits b8 and b4 are zero), so a request cannot be mistaken for a block.
enum PPSExchange {
    /// The card's answer to a PPS request: the request itself when it is well formed and asks
    /// for T=1 (the card accepts every Fi/Di, ISO/IEC 7816-3 §9.3 "successful exchange"), `nil`
    /// when the card stays silent (a malformed request, or another protocol).
    static func response(to request: [UInt8]) -> [UInt8]? {
        guard request.count >= 3, request[0] == 0xFF else { return nil }
        let pps0 = request[1]
        let optional = [0x10, 0x20, 0x40].filter { pps0 & UInt8($0) != 0 }.count
        guard request.count == 3 + optional, request.reduce(0, ^) == 0 else { return nil }
        guard pps0 & 0x0F == 1 else { return nil }
        return request
    }
}
