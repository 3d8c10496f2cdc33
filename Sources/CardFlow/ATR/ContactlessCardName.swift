/// The two card-name bytes NN NN of a PC/SC part 3 storage-card ATR, named as the PC/SC part 3
/// supplement's card-name table names them.
///
/// Readers report NFC Forum Type 2 tags such as NXP's NTAG21x as MIFARE Ultralight (00 03), the
/// table having no entry of their own: only the tag's GET_VERSION answer tells them apart.
public struct ContactlessCardName: Sendable, Hashable, CustomStringConvertible {
    /// The two bytes as a big-endian number (`00 01` is 1).
    public let rawValue: UInt16

    /// The card name bytes `rawValue >> 8`, `rawValue & 0xFF`.
    public init(rawValue: UInt16) {
        self.rawValue = rawValue
    }

    /// The table's name; nil for values the table does not list (such as vendors' own F0xx).
    public var name: String? {
        guard rawValue >> 8 == 0x00 else { return nil }
        let index = Int(rawValue & 0xFF)
        return index < Self.names.count ? Self.names[index] : nil
    }

    /// The two bytes NN NN as the ATR carries them.
    public var bytes: [UInt8] {
        [UInt8(truncatingIfNeeded: rawValue >> 8), UInt8(truncatingIfNeeded: rawValue)]
    }

    public var description: String {
        name ?? "card name \(bytes.hexString)"
    }

    /// Names for 00 00 … 00 3D, in order.
    private static let names: [String?] = [
        "no information given", // 00 00
        "MIFARE Classic 1K", // 00 01
        "MIFARE Classic 4K", // 00 02
        "MIFARE Ultralight", // 00 03
        "SLE55R_XXXX", // 00 04
        nil, // 00 05 (not assigned)
        "SR176", // 00 06
        "SRI X4K", // 00 07
        "AT88RF020", // 00 08
        "AT88SC0204CRF", // 00 09
        "AT88SC0808CRF", // 00 0A
        "AT88SC1616CRF", // 00 0B
        "AT88SC3216CRF", // 00 0C
        "AT88SC6416CRF", // 00 0D
        "SRF55V10P", // 00 0E
        "SRF55V02P", // 00 0F
        "SRF55V10S", // 00 10
        "SRF55V02S", // 00 11
        "TAG-IT", // 00 12
        "LRI512", // 00 13
        "ICODE SLI", // 00 14
        "TEMPSENS", // 00 15
        "I.CODE1", // 00 16
        "PicoPass 2K", // 00 17
        "PicoPass 2KS", // 00 18
        "PicoPass 16K", // 00 19
        "PicoPass 16KS", // 00 1A
        "PicoPass 16K (8x2)", // 00 1B
        "PicoPass 16KS (8x2)", // 00 1C
        "PicoPass 32KS (16+16)", // 00 1D
        "PicoPass 32KS (16+8x2)", // 00 1E
        "PicoPass 32KS (8x2+16)", // 00 1F
        "PicoPass 32KS (8x2+8x2)", // 00 20
        "LRI64", // 00 21
        "I.CODE UID", // 00 22
        "I.CODE EPC", // 00 23
        "LRI12", // 00 24
        "LRI128", // 00 25
        "MIFARE Mini", // 00 26
        "my-d move (SLE 66R01P)", // 00 27
        "my-d NFC (SLE 66RxxP)", // 00 28
        "my-d proximity 2 (SLE 66RxxS)", // 00 29
        "my-d proximity enhanced (SLE 55RxxE)", // 00 2A
        "my-d light (SRF 55V01P)", // 00 2B
        "PJM Stack Tag (SRF 66V10ST)", // 00 2C
        "PJM Item Tag (SRF 66V10IT)", // 00 2D
        "PJM Light (SRF 66V01ST)", // 00 2E
        "Jewel Tag", // 00 2F
        "Topaz NFC Tag", // 00 30
        "AT88SC0104CRF", // 00 31
        "AT88SC0404CRF", // 00 32
        "AT88RF01C", // 00 33
        "AT88RF04C", // 00 34
        "i-Code SL2", // 00 35
        "MIFARE Plus SL1 2K", // 00 36
        "MIFARE Plus SL1 4K", // 00 37
        "MIFARE Plus SL2 2K", // 00 38
        "MIFARE Plus SL2 4K", // 00 39
        "MIFARE Ultralight C", // 00 3A
        "FeliCa", // 00 3B
        "Melexis Sensor Tag (MLX90129)", // 00 3C
        "MIFARE Ultralight EV1", // 00 3D
    ]
}
