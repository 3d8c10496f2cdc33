/// The value of the `sw` metric dimension for a status word, from a fixed set.
///
/// Status words come from the card: used as they are, a card answering every possible one
/// would create 65,536 series per reader in the metrics backend. Status words that ISO/IEC
/// 7816-4 names, `63Cx` retry counters and DESFire's `91xx` codes keep their value; any other
/// is reported by its SW1 family (`6Fxx` style, only for SW1 `6x` and `9x`) or as `other`.
enum StatusWordMetricLabel {
    /// ISO/IEC 7816-4 section 5.6 status words with a meaning of their own.
    private static let named: Set<UInt16> = [
        0x6200, 0x6281, 0x6282, 0x6283, 0x6284, 0x6285, 0x6286,
        0x6300, 0x6381, 0x6400, 0x6401, 0x6500, 0x6581, 0x6700, 0x6800, 0x6881, 0x6882, 0x6883, 0x6884,
        0x6900, 0x6981, 0x6982, 0x6983, 0x6984, 0x6985, 0x6986, 0x6987, 0x6988,
        0x6A80, 0x6A81, 0x6A82, 0x6A83, 0x6A84, 0x6A85, 0x6A86, 0x6A87, 0x6A88, 0x6A89, 0x6A8A,
        0x6B00, 0x6D00, 0x6E00, 0x6F00, 0x9000,
    ]

    /// DESFire status bytes after `91` (EV1 status codes).
    private static let desfire: Set<UInt8> = [
        0x00, 0x0C, 0x0E, 0x1C, 0x1E, 0x40, 0x7E, 0x9D, 0x9E, 0xA0, 0xA1, 0xAE, 0xAF, 0xBE, 0xC1, 0xCA, 0xCD, 0xDE,
        0xEE, 0xF0, 0xF1,
    ]

    static func label(for statusWord: StatusWord) -> String {
        let value = UInt16(statusWord.sw1) << 8 | UInt16(statusWord.sw2)
        if named.contains(value) || statusWord.sw1 == 0x63 && statusWord.sw2 & 0xF0 == 0xC0
            || statusWord.sw1 == 0x91 && desfire.contains(statusWord.sw2)
        {
            return statusWord.hexString
        }
        switch statusWord.sw1 {
        case 0x60...0x6F, 0x90...0x9F: return [statusWord.sw1].hexString + "xx"
        default: return "other"
        }
    }
}
