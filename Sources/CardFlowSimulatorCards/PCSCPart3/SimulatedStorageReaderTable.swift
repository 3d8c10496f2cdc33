/// The simulator's one VID:PID table for storage cards: which MIFARE Classic dialect and which
/// raw-frame route each reader family's firmware speaks. ``MIFAREClassicReaderDialect`` and
/// ``StorageRawFrameDialect`` both look their reader up here, so a reader added once gets both.
/// The sources of each family's behaviour are in those two types.
enum SimulatedStorageReaderTable {
    struct Entry {
        let classicDialect: MIFAREClassicReaderDialect
        let rawRoute: StorageRawFrameDialect.Route
    }

    /// The entry for the reader with this USB vendor and product ID; readers not listed speak
    /// plain PC/SC part 3.
    static func entry(vendorID: UInt16, productID: UInt16) -> Entry {
        switch (vendorID, productID) {
        // ACR122U: ACS Classic commands, raw frames through its PN532.
        case (0x072F, 0x2200): Entry(classicDialect: .acs, rawRoute: .pn532InCommunicateThru)
        // ACR1252U 223B/223E, ACR1255U-J1 223F: ACS Classic commands, direct transmit.
        case (0x072F, 0x223B), (0x072F, 0x223E), (0x072F, 0x223F):
            Entry(classicDialect: .acs, rawRoute: .acsDirectTransmit)
        // SCL3711 5591, uTrust 3700 F 5790, uTrust 3720 F 5612, CLOUD 4700 F 5720.
        case (0x04E6, 0x5591), (0x04E6, 0x5790), (0x04E6, 0x5612), (0x04E6, 0x5720):
            Entry(classicDialect: .identiv, rawRoute: .part3TransparentExchange)
        // OMNIKEY 5421, 5422, 5427 CK.
        case (0x076B, 0x5421), (0x076B, 0x5422), (0x076B, 0x5427):
            Entry(classicDialect: .omnikey, rawRoute: .part3TransparentExchange)
        default: Entry(classicDialect: .generic, rawRoute: .part3TransparentExchange)
        }
    }
}
