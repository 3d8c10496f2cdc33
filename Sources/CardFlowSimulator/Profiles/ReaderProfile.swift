import Foundation

/// A USB CCID reader model as described by a descriptor dump of the pcsc-lite CCID driver
/// project (`readers/*.txt`, the format of `Tests/Fixtures/ccid-readers`), so that a virtual
/// reader can mimic it.
///
/// A dump holds one block per interface (`idVendor …` up to `bMaxCCIDBusySlots`); composite
/// readers (PICC + SAM, contact + contactless) have several.
public struct ReaderProfile: Sendable, Hashable, Codable {
    /// `idVendor`.
    public var vendorID: UInt16
    /// `idProduct`.
    public var productID: UInt16
    /// `bcdDevice` (for example `0x0207` for "2.07").
    public var bcdDevice: UInt16
    /// The `iManufacturer` string, or `nil` when the dump could not get it.
    public var manufacturer: String?
    /// The `iProduct` string, or `nil` when the dump could not get it.
    public var product: String?
    /// The interfaces in dump order (not necessarily distinct interface numbers: a few dumps
    /// repeat a block).
    public var interfaces: [ReaderInterfaceProfile]

    /// Creates a profile from its fields.
    public init(
        vendorID: UInt16, productID: UInt16, bcdDevice: UInt16,
        manufacturer: String?, product: String?, interfaces: [ReaderInterfaceProfile]
    ) {
        self.vendorID = vendorID
        self.productID = productID
        self.bcdDevice = bcdDevice
        self.manufacturer = manufacturer
        self.product = product
        self.interfaces = interfaces
    }

    /// Parses the text of a descriptor dump of one device.
    ///
    /// Descriptive lines (voltage names, feature bit explanations, `Support … bps`, GET_CLOCK /
    /// GET_DATA_RATES diagnostics) are skipped; `Can't get … string` lines give `nil` names;
    /// CR-LF line ends and trailing spaces are accepted.
    ///
    /// - Throws: ``ReaderProfileError`` with the line number and what was expected;
    ///   ``ReaderProfileError/inconsistentDevice(line:field:expected:found:)`` when the dump
    ///   describes several devices (use ``profiles(parsing:)`` for those).
    public init(parsing text: String) throws(ReaderProfileError) {
        self = try ReaderDumpParser.parse(text)
    }

    /// Parses a descriptor dump that may describe several devices (a few dumps concatenate the
    /// blocks of two readers): one profile per distinct vendor, product and `bcdDevice`, in
    /// order of first appearance.
    ///
    /// - Throws: ``ReaderProfileError``.
    public static func profiles(parsing text: String) throws(ReaderProfileError) -> [ReaderProfile] {
        try ReaderDumpParser.parseDevices(text)
    }

    /// Reads a descriptor dump file that may describe several devices (see ``profiles(parsing:)``).
    ///
    /// - Throws: ``ReaderProfileError``.
    public static func profiles(contentsOfFile path: String) throws(ReaderProfileError) -> [ReaderProfile] {
        try profiles(parsing: try readText(path))
    }

    /// Reads and parses a descriptor dump file of one device (bytes that are not UTF-8 are replaced).
    ///
    /// - Throws: ``ReaderProfileError``.
    public init(contentsOfFile path: String) throws(ReaderProfileError) {
        try self.init(parsing: try Self.readText(path))
    }

    private static func readText(_ path: String) throws(ReaderProfileError) -> String {
        do {
            return String(decoding: try Data(contentsOf: URL(fileURLWithPath: path)), as: UTF8.self)
        } catch {
            throw .unreadableFile(path: path, reason: String(describing: error))
        }
    }

    /// The 54-byte CCID class descriptor of the interface at position `interface` in
    /// ``interfaces`` (for well-formed dumps the position equals `bInterfaceNumber`).
    ///
    /// - Precondition: `interfaces.indices.contains(interface)`.
    public func classDescriptorBytes(interface: Int) -> [UInt8] {
        interfaces[interface].classDescriptorBytes
    }
}
