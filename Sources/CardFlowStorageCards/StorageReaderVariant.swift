/// The reader families whose PC/SC part 3 storage-card commands differ.
public enum StorageReaderFamily: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// ACS (ACR122U, ACR1252U, ACR1255U-J1).
    case acs
    /// Identiv, formerly SCM Microsystems (SCL3711, uTrust 3700 F / 3720 F, CLOUD 4700 F).
    case identiv
    /// HID OMNIKEY (5421, 5422, 5427 CK).
    case omnikey
    /// Any other reader: PC/SC part 3 as written.
    case genericPart3

    public var description: String {
        switch self {
        case .acs: "ACS"
        case .identiv: "Identiv/SCM"
        case .omnikey: "HID OMNIKEY"
        case .genericPart3: "generic PC/SC part 3"
        }
    }
}

/// How one reader family speaks the storage-card pseudo-APDUs, and the table that finds it by
/// USB vendor and product ID.
///
/// | family | LOAD KEYS | GENERAL AUTHENTICATE | value blocks | raw frames |
/// |---|---|---|---|---|
/// | ACS | `FF 82 00 slot 06 KEY` (slots 00–01, volatile) | `… 01 00 BLK 60/61 slot` | `FF D7`, `FF B1` | ACR122U: PN532 `D4 42`; ACR1252U/1255U: `FF 00 00 00` |
/// | Identiv/SCM | `FF 82 00 60/61 06 KEY` (P2 = key type, volatile) | `… 01 00 BLK 60/61 01` | read-modify-write | `FF C2` (unverified) |
/// | HID OMNIKEY | `FF 82 20 slot 06 KEY` (non-volatile) | `… 01 00 BLK 60/61 slot` | read-modify-write | `FF C2` (unverified) |
/// | generic | `FF 82 00/20 slot 06 KEY` (P1 bit 5: non-volatile) | `… 01 00 BLK 60/61 slot` | read-modify-write | `FF C2` |
///
/// Sources: ACS — ACR122U API v2.04 §5.1–5.4 and the AET62 / ACR1281U manuals (key locations
/// 00–01h lost at power-off; value block `FF D7 00 blk 05 op value` with the value MSB first;
/// restore `FF D7 00 src 02 03 dst`; read value `FF B1 00 blk 04`); Identiv/SCM — SCL3711
/// reference manual §6.2.3 ("P2 … 0x60 to use the Key A, 0x61 to use the Key B") and the uTrust
/// 3720F/3721F reference manual §6.2.3–6.2.5 (load keys into volatile memory, authenticate with
/// key number `01` after a key type, and `FF B1` there is READ SECTOR, not read value);
/// HID OMNIKEY — HID Global's `hidglobal/mifare-sample` (MifareTest.cpp for the OMNIKEY
/// 5x21-CL: `FF 82 20 00 06 KEY`, "P1=0x20 means in non volatile reader memory, P2-key number",
/// then `FF 86 00 00 05 01 00 01 60 00`); its slot range and any volatile location are in HID's
/// OMNIKEY contactless developer guide, which was not retrieved: only slot 00 is offered.
/// Generic — PC/SC part 3 §3.2.2.1.4/§3.2.2.1.6 (P1 bit 5 volatile/non-volatile, P2 key number).
public struct StorageReaderVariant: Sendable, Hashable, CustomStringConvertible {
    /// What LOAD KEYS' P2 means, and so what GENERAL AUTHENTICATE's key number is.
    public enum KeyAddressing: Sendable, Hashable {
        /// P2 is a key slot of the reader; authentication names the slot.
        case keySlot
        /// P2 is the key type (`60`/`61`): one key of each type; authentication names key number
        /// `keyNumber` after the type.
        case keyType(keyNumber: UInt8)
    }

    public let family: StorageReaderFamily
    public let keyAddressing: KeyAddressing
    /// Slots that keep a key until power-off (LOAD KEYS P1 `00`); nil when the family has none.
    public let volatileKeySlots: ClosedRange<UInt8>?
    /// Slots that keep a key across power-off (LOAD KEYS P1 `20`); nil when the family has none
    /// or it is not known.
    public let nonVolatileKeySlots: ClosedRange<UInt8>?
    /// Whether the reader has the ACS value-block commands (`FF D7` operations, `FF B1` read value).
    public let valueBlockCommands: Bool
    /// Whether increments and decrements go through PC/SC part 3's `FF C2 00 03` (2.02
    /// amendment 1 §3.2.2.1.10): Identiv documents it for its uTrust and CLOUD readers, and the
    /// generic variant follows part 3. With neither these nor the ACS commands the client reads,
    /// changes and writes the value block, which needs write permission that access conditions
    /// `110` (with key A) and `001` deny where they allow a decrement. A reader that answers the
    /// command as unknown falls back to that.
    public var part3ValueOperations: Bool { family == .identiv || family == .genericPart3 }

    /// How the reader carries raw card frames (NTAG PWD_AUTH, FeliCa…); see
    /// ``StorageRawFrameRoute`` for each route's form and sources.
    public let rawFrameRoute: StorageRawFrameRoute
    /// Whether, once a raw-frame authentication (NTAG PWD_AUTH) has been done, every later
    /// command of the session has to stay on the raw path: on ACS readers a part 3 `FF B0` read
    /// after PWD_AUTH through the pass-through fails (`reference/storage-cards.md`; reported for
    /// the ACR122U, assumed for the family).
    public let rawPathAfterAuthentication: Bool

    /// ACS readers with a direct transmit to the card (ACR1252U, ACR1255U-J1).
    public static let acs = StorageReaderVariant(
        family: .acs, keyAddressing: .keySlot, volatileKeySlots: 0x00...0x01, nonVolatileKeySlots: nil,
        valueBlockCommands: true, rawFrameRoute: .acsDirectTransmit, rawPathAfterAuthentication: true)
    /// The ACS ACR122U: as ``acs``, raw frames through its PN532.
    public static let acr122u = StorageReaderVariant(
        family: .acs, keyAddressing: .keySlot, volatileKeySlots: 0x00...0x01, nonVolatileKeySlots: nil,
        valueBlockCommands: true, rawFrameRoute: .pn532InCommunicateThru, rawPathAfterAuthentication: true)
    /// Identiv/SCM readers.
    public static let identiv = StorageReaderVariant(
        family: .identiv, keyAddressing: .keyType(keyNumber: 0x01), volatileKeySlots: nil, nonVolatileKeySlots: nil,
        valueBlockCommands: false, rawFrameRoute: .part3TransparentExchange, rawPathAfterAuthentication: false)
    /// HID OMNIKEY readers.
    public static let omnikey = StorageReaderVariant(
        family: .omnikey, keyAddressing: .keySlot, volatileKeySlots: nil, nonVolatileKeySlots: 0x00...0x00,
        valueBlockCommands: false, rawFrameRoute: .part3TransparentExchange, rawPathAfterAuthentication: false)
    /// Readers not in the table.
    public static let genericPart3 = StorageReaderVariant(
        family: .genericPart3, keyAddressing: .keySlot, volatileKeySlots: 0x00...0x01, nonVolatileKeySlots: nil,
        valueBlockCommands: false, rawFrameRoute: .part3TransparentExchange, rawPathAfterAuthentication: false)

    /// The variant of the reader with this USB vendor and product ID; ``genericPart3`` for
    /// readers the table does not list (and for nil IDs: readers behind pcscd or vpcd).
    public static func lookup(vendorID: UInt16?, productID: UInt16?) -> StorageReaderVariant {
        guard let vendorID, let productID,
            let entry = entries.first(where: { $0.vendorID == vendorID && $0.productIDs.contains(productID) })
        else { return .genericPart3 }
        return entry.variant
    }

    /// The variant of `family` for the reader with these USB IDs: the reader's own entry when
    /// it belongs to that family (an ACR122U keeps its PN532 route when asked for `acs`), else
    /// the family's usual variant; nil `family` looks the reader up. For a user who names the
    /// family of a reader the table does not know, or of one behind pcscd.
    public static func lookup(family: StorageReaderFamily?, vendorID: UInt16?, productID: UInt16?)
        -> StorageReaderVariant
    {
        let listed = lookup(vendorID: vendorID, productID: productID)
        guard let family, listed.family != family else { return listed }
        return switch family {
        case .acs: .acs
        case .identiv: .identiv
        case .omnikey: .omnikey
        case .genericPart3: .genericPart3
        }
    }

    private struct Entry {
        var vendorID: UInt16
        var productIDs: Set<UInt16>
        var variant: StorageReaderVariant
    }

    private static let entries: [Entry] = [
        // ACR122U 2200 (IDs: LudovicRousseau/CCID reader dumps): raw frames through its PN532
        // (ACR122U API v2.04 §6).
        Entry(vendorID: 0x072F, productIDs: [0x2200], variant: .acr122u),
        // ACR1252U 223B/223E, ACR1255U-J1 223F: direct transmit to the card (ACR1252U API manual).
        Entry(vendorID: 0x072F, productIDs: [0x223B, 0x223E, 0x223F], variant: .acs),
        // Identiv and OMNIKEY raw frames: PC/SC part 3 transparent exchange, not verified against
        // their manuals (see StorageRawFrameRoute).
        // SCL3711 5591, uTrust 3700 F 5790, uTrust 3720 F 5612, CLOUD 4700 F 5720.
        Entry(vendorID: 0x04E6, productIDs: [0x5591, 0x5790, 0x5612, 0x5720], variant: .identiv),
        // OMNIKEY 5421, 5422, 5427 CK.
        Entry(vendorID: 0x076B, productIDs: [0x5421, 0x5422, 0x5427], variant: .omnikey),
    ]

    public var description: String { family.description }
}
