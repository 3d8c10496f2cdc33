/// How long an ATR is, judged from its first bytes (ISO/IEC 7816-3 §8.2): TS, T0, the interface
/// bytes each Y nibble announces, the K historical bytes, and TCK unless only T=0 is indicated.
///
/// A character-level reader may hand over fewer ATR bytes than the card sent; the driver then
/// reads the rest from the I/O line.
public enum ATRLength {
    /// The longest ATR ISO/IEC 7816-3 allows.
    public static let maximum = 33

    /// The number of bytes known to be missing after `prefix`: 0 when it is complete, nil when
    /// it cannot be an ATR (no TS 3B/3F). More may turn out to be missing once those arrive
    /// (a TDi announces further interface bytes).
    public static func missing(after prefix: [UInt8]) -> Int? {
        guard let ts = prefix.first else { return 2 }
        guard ts == 0x3B || ts == 0x3F else { return nil }
        guard prefix.count >= 2 else { return 1 }
        var index = 2
        var indicator = prefix[1]
        let historical = Int(prefix[1] & 0x0F)
        var onlyT0 = true
        while true {
            let y = indicator >> 4
            let interfaceBytes = (y & 1) + (y >> 1 & 1) + (y >> 2 & 1) + (y >> 3 & 1)
            let next = index + Int(interfaceBytes)
            guard y & 0x8 != 0 else {
                index = next
                break
            }
            // The TD byte is the last of the group.
            guard next <= prefix.count else { return next - prefix.count }
            indicator = prefix[next - 1]
            if indicator & 0x0F != 0 { onlyT0 = false }
            index = next
        }
        let total = index + historical + (onlyT0 ? 0 : 1)
        return max(total - prefix.count, 0)
    }
}
