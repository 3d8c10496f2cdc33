/// How the reader under a simulated MIFARE Classic card speaks the PC/SC part 3 storage
/// pseudo-APDUs, chosen by the reader's USB vendor and product ID (written from the vendors'
/// manuals, like `reference/storage-cards.md`):
///
/// - `acs` (072F: 2200 ACR122U, 223B/223E ACR1252U, 223F ACR1255U-J1; ACR122U API v2.04 §5):
///   LOAD KEYS `FF 82 00 slot 06 key` into volatile slots 00–01; authentication names the slot;
///   value blocks through `FF D7` / `FF B1`; every error answers `63 00`; the obsolete
///   `FF 88` authentication is accepted.
/// - `identiv` (04E6: 5591 SCL3711, 5790 uTrust 3700 F, 5612 uTrust 3720 F, 5720 CLOUD 4700 F;
///   SCL3711 and uTrust 3720F reference manuals): LOAD KEYS `FF 82 00 60|61 06 key` (P2 = key
///   type, one volatile key per type); authentication `… 60|61 01` uses the key of its type;
///   no ACS value commands; increment/decrement through PC/SC part 3's `FF C2 00 03`
///   (`PAPDU_MIFARE_VALUE_BLK_NEW` in the uTrust 3720F and CLOUD 47x0 F manuals).
/// - `omnikey` (076B: 5421, 5422, 5427; HID's mifare-sample): LOAD KEYS with P1 `20`
///   (non-volatile) or `00`, P2 = slot 00–1F (range not verified); no ACS value commands.
/// - `generic`: PC/SC part 3 (P1 bit 5 non-volatile, P2 slot 00–1F); no ACS value commands;
///   part 3's increment/decrement `FF C2 00 03`.
///
/// Non-ACS families answer a refused READ/UPDATE BINARY with `69 82` (security status not
/// satisfied) and a failed authentication with `63 00`, as PC/SC part 3 lists them.
public enum MIFAREClassicReaderDialect: String, Sendable, Hashable, Codable, CaseIterable {
    case acs
    case identiv
    case omnikey
    case generic

    /// The dialect of the reader with this USB vendor and product ID.
    public init(vendorID: UInt16, productID: UInt16) {
        self = SimulatedStorageReaderTable.entry(vendorID: vendorID, productID: productID).classicDialect
    }

    /// The status word for a card command the card refused (not authenticated, access bits,
    /// halted card).
    var refused: [UInt8] { self == .acs ? [0x63, 0x00] : [0x69, 0x82] }
}
