/// The NFC Forum Type 2 tags ``NTAGClient`` knows, with their memory maps.
///
/// From the NXP datasheets — NTAG213/215/216 (rev. 3.2) §8.5 memory organisation and §10.1
/// GET_VERSION; MF0ULX1 (Ultralight EV1, rev. 3.2) §8.5 and §9.1:
///
/// | product | GET_VERSION | pages | user pages | dynamic lock | CFG0 / CFG1 / PWD / PACK |
/// |---|---|---|---|---|---|
/// | NTAG213 | `00 04 04 02 01 00 0F 03` | 45 | 04–27h | 28h | 29h / 2Ah / 2Bh / 2Ch |
/// | NTAG215 | `00 04 04 02 01 00 11 03` | 135 | 04–81h | 82h | 83h / 84h / 85h / 86h |
/// | NTAG216 | `00 04 04 02 01 00 13 03` | 231 | 04–E1h | E2h | E3h / E4h / E5h / E6h |
/// | MF0UL11 | `00 04 03 01 01 00 0B 03` | 20 | 04–0Fh | — | 10h / 11h / 12h / 13h |
/// | MF0UL21 | `00 04 03 01 01 00 0E 03` | 41 | 04–23h | 24h | 25h / 26h / 27h / 28h |
///
/// The subtype byte (`02` 50 pF, `01` 17 pF; EV1 also has `02` variants MF0ULH) is not part
/// of the identification; vendor `04` (NXP), product type (`04` NTAG, `03` Ultralight) and
/// storage size are. A tag that does not answer GET_VERSION is a plain MIFARE Ultralight
/// (``ultralight``: 16 pages, no password).
public enum Type2Product: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    case ntag213
    case ntag215
    case ntag216
    /// MIFARE Ultralight EV1, 48 bytes of user memory.
    case ultralightEV1MF0UL11
    /// MIFARE Ultralight EV1, 128 bytes of user memory.
    case ultralightEV1MF0UL21
    /// A MIFARE Ultralight without GET_VERSION (MF0ICU1): pages 0–15, no configuration pages.
    case ultralight

    /// The product a GET_VERSION answer names; nil for an answer of another length, another
    /// vendor or product type, or a storage size not in the table.
    public init?(version: [UInt8]) {
        guard version.count == 8, version[0] == 0x00, version[1] == 0x04, version[7] == 0x03 else { return nil }
        switch (version[2], version[6]) {
        case (0x04, 0x0F): self = .ntag213
        case (0x04, 0x11): self = .ntag215
        case (0x04, 0x13): self = .ntag216
        case (0x03, 0x0B): self = .ultralightEV1MF0UL11
        case (0x03, 0x0E): self = .ultralightEV1MF0UL21
        default: return nil
        }
    }

    /// The product an NFC Forum capability container (page 3: `E1 version size access`) names
    /// by its data-area size byte as the datasheets give it from the factory: NTAG213 `12`,
    /// NTAG215 `3E`, NTAG216 `6D`, Ultralight EV1 MF0UL21 `10`. Nil for another magic number
    /// or size (a 48-byte `06` may be a plain Ultralight or an MF0UL11: not told apart).
    public init?(capabilityContainer: [UInt8]) {
        guard capabilityContainer.count == 4, capabilityContainer[0] == 0xE1 else { return nil }
        switch capabilityContainer[2] {
        case 0x12: self = .ntag213
        case 0x3E: self = .ntag215
        case 0x6D: self = .ntag216
        case 0x10: self = .ultralightEV1MF0UL21
        default: return nil
        }
    }

    /// How many pages of 4 bytes the tag has.
    public var pageCount: Int {
        switch self {
        case .ntag213: 45
        case .ntag215: 135
        case .ntag216: 231
        case .ultralightEV1MF0UL11: 20
        case .ultralightEV1MF0UL21: 41
        case .ultralight: 16
        }
    }

    /// The pages of user memory (the NDEF area on NTAG).
    public var userPages: ClosedRange<Int> {
        switch self {
        case .ntag213: 0x04...0x27
        case .ntag215: 0x04...0x81
        case .ntag216: 0x04...0xE1
        case .ultralightEV1MF0UL11: 0x04...0x0F
        case .ultralightEV1MF0UL21: 0x04...0x23
        case .ultralight: 0x04...0x0F
        }
    }

    /// The page of CFG0 (AUTH0 in its byte 3), followed by CFG1 (ACCESS in byte 0), PWD and
    /// PACK; nil for the plain Ultralight.
    public var configurationPage: Int? {
        switch self {
        case .ntag213: 0x29
        case .ntag215: 0x83
        case .ntag216: 0xE3
        case .ultralightEV1MF0UL11: 0x10
        case .ultralightEV1MF0UL21: 0x25
        case .ultralight: nil
        }
    }

    /// The page of the password (write-only; it reads as zeros).
    public var passwordPage: Int? { configurationPage.map { $0 + 2 } }
    /// The page of PACK (bytes 0–1; reads as zeros).
    public var packPage: Int? { configurationPage.map { $0 + 3 } }

    /// Whether the tag is an NTAG21x (NFC counter, FAST_READ, READ_SIG) rather than an
    /// Ultralight.
    public var isNTAG: Bool { self == .ntag213 || self == .ntag215 || self == .ntag216 }

    /// Whether the tag has GET_VERSION, FAST_READ, READ_CNT, READ_SIG and PWD_AUTH.
    public var hasEV1Commands: Bool { self != .ultralight }

    /// The counter numbers READ_CNT takes: 02 (the NFC counter) on NTAG21x, 00–02 on EV1.
    public var counterNumbers: ClosedRange<UInt8>? {
        switch self {
        case .ntag213, .ntag215, .ntag216: 0x02...0x02
        case .ultralightEV1MF0UL11, .ultralightEV1MF0UL21: 0x00...0x02
        case .ultralight: nil
        }
    }

    /// The NDEF capability container an NFC Forum formatted tag of this product has in page 3
    /// (`E1 10 size 00`, the size in 8-byte units: NTAG213 `12`, NTAG215 `3E`, NTAG216 `6D`,
    /// MF0UL11 `06`, MF0UL21 `10`, Ultralight `06`).
    public var capabilityContainer: [UInt8] {
        let size: UInt8 =
            switch self {
            case .ntag213: 0x12
            case .ntag215: 0x3E
            case .ntag216: 0x6D
            case .ultralightEV1MF0UL11, .ultralight: 0x06
            case .ultralightEV1MF0UL21: 0x10
            }
        return [0xE1, 0x10, size, 0x00]
    }

    public var description: String {
        switch self {
        case .ntag213: "NTAG213"
        case .ntag215: "NTAG215"
        case .ntag216: "NTAG216"
        case .ultralightEV1MF0UL11: "MIFARE Ultralight EV1 (MF0UL11)"
        case .ultralightEV1MF0UL21: "MIFARE Ultralight EV1 (MF0UL21)"
        case .ultralight: "MIFARE Ultralight"
        }
    }
}
