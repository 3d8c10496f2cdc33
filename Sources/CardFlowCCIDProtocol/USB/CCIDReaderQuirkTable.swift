/// Reader models whose firmware deviates from the CCID specification, and what to do about it.
///
/// The entries come from the pcsc-lite CCID driver (`src/ccid.c` open hacks, `Bogus_firmwares[]`
/// in `src/ccid_usb.c`), GnuPG's `scd/ccid-driver.c` and acsccid:
///
/// | reader | VID:PID | consequence |
/// |---|---|---|
/// | ACS ACR122U PICC | 072F:2200 | no SET_INTERFACE; answers may carry the previous bSeq; 30 s first GetSlotStatus; firmware < 2.06 warned (Le=0x7B fails with SW 63 00) |
/// | SCM SCL010 | 04E6:5291 | firmware < 1.12 warned (blacklisted by pcsc-lite) |
/// | SCM SCL011 | 04E6:5293 | 12 s first GetSlotStatus (answers after about 350 ms) |
/// | Identiv uTrust 3700 F | 04E6:5790 | 12 s first GetSlotStatus |
/// | Elatec TWN4 | 09D8:0427, 09D8:0428 | 30 s first GetSlotStatus |
/// | HID OMNIKEY 3x21, 6121, Aviator; Cherry Smart Terminal xx44; Fujitsu D323 | 076B:3031, 076B:6632, 076B:3A21, 046A:00A7, 0BF8:1024 | extended APDU level (the firmware chains), bPINSupport 0 |
/// | Cherry KC1000SC firmware 1.00 | 046A:00A1 | extended APDU level when short is announced (answers > 128 bytes are chained) |
/// | Kobil TriBank | 0D46:3010 | short APDU level |
/// | Alcor Micro AU9540 | 058F:9540 | cards run at 200 000 bps at most (its data rate list goes to 318 280) |
/// | O2Micro Oz776 | 0B97:7762, 0B97:7772 | no PPS: the card keeps its default protocol and speed |
///
/// The Diebold PN7362AU, which pcsc-lite also forces to extended APDUs, is not listed: its USB
/// IDs are not in the sources this table was written from.
///
/// ```swift
/// let profile = CCIDReaderQuirkTable.lookup(vendorID: 0x072F, productID: 0x2200, bcdDevice: 0x0207)
/// profile.quirks   // [.noSetInterface, .acceptsPreviousSequence]
/// ```
public enum CCIDReaderQuirkTable {
    /// The profile of a reader; readers the table does not know get an empty profile.
    public static func lookup(vendorID: UInt16, productID: UInt16, bcdDevice: UInt16) -> CCIDReaderQuirkProfile {
        guard let entry = entries.first(where: { $0.vendorID == vendorID && $0.productID.contains(productID) }) else {
            return CCIDReaderQuirkProfile()
        }
        var profile = CCIDReaderQuirkProfile(
            model: entry.model, quirks: entry.quirks,
            pinSupportOverride: entry.pinSupportOverride,
            initialStatusTimeout: entry.initialStatusTimeout, maximumDataRate: entry.maximumDataRate)
        if let override = entry.exchangeLevelOverride,
            entry.overrideOnlyForFirmware.map({ $0 == bcdDevice }) ?? true
        {
            profile.exchangeLevelOverride = override
        }
        if let minimum = entry.minimumFirmware, bcdDevice < minimum.bcdDevice {
            profile.warnings.append(
                "\(entry.model) with firmware \(firmwareVersion(bcdDevice)) (bcdDevice 0x\(hex4(bcdDevice))): "
                    + minimum.problem)
        }
        return profile
    }

    private struct Entry {
        var model: String
        var vendorID: UInt16
        var productID: Set<UInt16>
        var quirks: CCIDQuirks = []
        var exchangeLevelOverride: CCIDExchangeLevelOverride?
        /// The override applies to this bcdDevice only (nil: every firmware).
        var overrideOnlyForFirmware: UInt16?
        var pinSupportOverride: UInt8?
        var initialStatusTimeout: Duration?
        var maximumDataRate: UInt32?
        var minimumFirmware: (bcdDevice: UInt16, problem: String)?
    }

    private static let entries: [Entry] = [
        Entry(
            model: "ACS ACR122U", vendorID: 0x072F, productID: [0x2200],
            quirks: [.noSetInterface, .acceptsPreviousSequence],
            // "answers after up to 1 s if no tag is present" (pcsc-lite commit 4841404).
            initialStatusTimeout: .seconds(30),
            minimumFirmware: (0x0206, "firmware below 2.06 fails APDUs with Le=0x7B, SW 63 00")),
        Entry(
            model: "SCM SCL010", vendorID: 0x04E6, productID: [0x5291],
            minimumFirmware: (
                0x0112, "firmware below 1.12 is refused as bogus by the pcsc-lite CCID driver; expect failures"
            )),
        Entry(model: "SCM SCL011", vendorID: 0x04E6, productID: [0x5293], initialStatusTimeout: .seconds(12)),
        Entry(
            model: "Identiv uTrust 3700 F", vendorID: 0x04E6, productID: [0x5790], initialStatusTimeout: .seconds(12)),
        Entry(model: "Elatec TWN4", vendorID: 0x09D8, productID: [0x0427, 0x0428], initialStatusTimeout: .seconds(30)),
        // "The chip advertises pinpad but actually doesn't have one" and "Firmware uses chaining".
        Entry(
            model: "HID OMNIKEY 3x21", vendorID: 0x076B, productID: [0x3031],
            exchangeLevelOverride: CCIDExchangeLevelOverride(level: .extendedAPDU), pinSupportOverride: 0),
        Entry(
            model: "HID OMNIKEY 6121", vendorID: 0x076B, productID: [0x6632],
            exchangeLevelOverride: CCIDExchangeLevelOverride(level: .extendedAPDU), pinSupportOverride: 0),
        Entry(
            model: "HID Aviator (OMNIKEY generic)", vendorID: 0x076B, productID: [0x3A21],
            exchangeLevelOverride: CCIDExchangeLevelOverride(level: .extendedAPDU), pinSupportOverride: 0),
        Entry(
            model: "Cherry Smart Terminal xx44", vendorID: 0x046A, productID: [0x00A7],
            exchangeLevelOverride: CCIDExchangeLevelOverride(level: .extendedAPDU), pinSupportOverride: 0),
        Entry(
            model: "Fujitsu Smartcard Reader D323", vendorID: 0x0BF8, productID: [0x1024],
            exchangeLevelOverride: CCIDExchangeLevelOverride(level: .extendedAPDU), pinSupportOverride: 0),
        // Firmware 1.00 returns at most 128 bytes per DataBlock and chains the rest like extended APDUs.
        Entry(
            model: "Cherry KC1000SC", vendorID: 0x046A, productID: [0x00A1],
            exchangeLevelOverride: CCIDExchangeLevelOverride(level: .extendedAPDU, whenAnnounced: .shortAPDU),
            overrideOnlyForFirmware: 0x0100),
        Entry(
            model: "Kobil TriBank", vendorID: 0x0D46, productID: [0x3010],
            exchangeLevelOverride: CCIDExchangeLevelOverride(level: .shortAPDU)),
        // pcsc-lite's driver drops this reader's data rates above 200 000 bps when it opens it; its
        // log shows it ("Remove baudrate: 212186", "… 231250", "… 318280", then "Reader can't do
        // more than 200000 bauds" for a card with TA1 96), found by replaying that log through
        // CardFlow's driver.
        Entry(model: "Alcor Micro AU9540", vendorID: 0x058F, productID: [0x9540], maximumDataRate: 200_000),
        // "PPS not supported on O2Micro readers" (pcsc-lite's driver, which then also falls back to
        // T=0 for a card that offers T=1 only; without a PPS such a card runs its default protocol, T=1).
        Entry(model: "O2Micro Oz776", vendorID: 0x0B97, productID: [0x7762, 0x7772], quirks: [.noPPS]),
    ]

    /// "2.06" for 0x0206 (bcdDevice is binary-coded decimal).
    private static func firmwareVersion(_ bcd: UInt16) -> String {
        let major = String(bcd >> 8, radix: 16)
        let minor = String(bcd & 0xFF, radix: 16)
        return "\(major).\(minor.count < 2 ? "0" + minor : minor)"
    }
}
