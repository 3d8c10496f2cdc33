/// The Type 2 tag products the simulator has, with their memory maps, from the NXP datasheets
/// (NTAG213/215/216 rev. 3.2 §8.5 and §10.1; MF0ULX1 Ultralight EV1 rev. 3.2 §8.5 and §9.1).
public enum SimulatedType2Model: String, Sendable, Hashable, Codable, CaseIterable {
    case ntag213
    case ntag215
    case ntag216
    /// MIFARE Ultralight EV1 MF0UL11 (48 bytes of user memory).
    case ultralightEV1 = "ultralight-ev1"
    /// MIFARE Ultralight EV1 MF0UL21 (128 bytes of user memory).
    case ultralightEV1Large = "ultralight-ev1-21"

    /// Pages of 4 bytes: 45, 135, 231, 20, 41.
    public var pageCount: Int {
        switch self {
        case .ntag213: 45
        case .ntag215: 135
        case .ntag216: 231
        case .ultralightEV1: 20
        case .ultralightEV1Large: 41
        }
    }

    /// CFG0 (AUTH0 in byte 3); CFG1, PWD and PACK follow.
    var configurationPage: Int {
        switch self {
        case .ntag213: 0x29
        case .ntag215: 0x83
        case .ntag216: 0xE3
        case .ultralightEV1: 0x10
        case .ultralightEV1Large: 0x25
        }
    }

    /// The dynamic lock bytes' page (3 lock bytes and an RFUI byte); MF0UL11 has none.
    var dynamicLockPage: Int? {
        switch self {
        case .ntag213: 0x28
        case .ntag215: 0x82
        case .ntag216: 0xE2
        case .ultralightEV1: nil
        case .ultralightEV1Large: 0x24
        }
    }

    /// Pages one dynamic lock bit locks, from page 16 on (NTAG213 and MF0UL21: 2; NTAG215 and
    /// NTAG216: 16 — the datasheets' dynamic lock tables).
    var pagesPerDynamicLockBit: Int { self == .ntag215 || self == .ntag216 ? 16 : 2 }

    var isNTAG: Bool { self == .ntag213 || self == .ntag215 || self == .ntag216 }

    /// GET_VERSION: header 00, vendor 04 (NXP), product type 04 NTAG / 03 Ultralight, subtype
    /// 02 (50 pF) / 01 (17 pF), major 01, minor 00, storage size, protocol 03.
    var version: [UInt8] {
        switch self {
        case .ntag213: [0x00, 0x04, 0x04, 0x02, 0x01, 0x00, 0x0F, 0x03]
        case .ntag215: [0x00, 0x04, 0x04, 0x02, 0x01, 0x00, 0x11, 0x03]
        case .ntag216: [0x00, 0x04, 0x04, 0x02, 0x01, 0x00, 0x13, 0x03]
        case .ultralightEV1: [0x00, 0x04, 0x03, 0x01, 0x01, 0x00, 0x0B, 0x03]
        case .ultralightEV1Large: [0x00, 0x04, 0x03, 0x01, 0x01, 0x00, 0x0E, 0x03]
        }
    }

    /// The PC/SC part 3 card name the reader reports: NTAG21x answer as an Ultralight (`00 03`),
    /// the Ultralight EV1 as `00 3D`.
    var cardName: UInt16 { isNTAG ? 0x0003 : 0x003D }

    /// NTAG21x leave the factory NFC Forum formatted (CC `E1 10 size 00`, then an empty NDEF
    /// TLV `03 00 FE`); the Ultralight EV1 with a blank OTP page.
    var factoryCapabilityContainer: [UInt8] {
        switch self {
        case .ntag213: [0xE1, 0x10, 0x12, 0x00]
        case .ntag215: [0xE1, 0x10, 0x3E, 0x00]
        case .ntag216: [0xE1, 0x10, 0x6D, 0x00]
        case .ultralightEV1, .ultralightEV1Large: [0x00, 0x00, 0x00, 0x00]
        }
    }
}
