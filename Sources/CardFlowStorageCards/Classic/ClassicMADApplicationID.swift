import CardFlow

/// A MAD application identifier (NXP AN10787 §3.7): a function cluster code and an application
/// code. On the card the application code comes first: the NFC Forum NDEF identifier `E1 03`
/// (cluster `E1`, application `03`) is stored as the bytes `03 E1`.
public struct ClassicMADApplicationID: Sendable, Hashable, CustomStringConvertible {
    public var functionCluster: UInt8
    public var applicationCode: UInt8

    public init(functionCluster: UInt8, applicationCode: UInt8) {
        self.functionCluster = functionCluster
        self.applicationCode = applicationCode
    }

    /// From the two bytes as the card stores them (application code, function cluster).
    public init(storedBytes low: UInt8, _ high: UInt8) {
        self.init(functionCluster: high, applicationCode: low)
    }

    /// `00 00`: the sector is free.
    public static let free = ClassicMADApplicationID(functionCluster: 0x00, applicationCode: 0x00)
    /// `00 01`: the sector is defective.
    public static let defective = ClassicMADApplicationID(functionCluster: 0x00, applicationCode: 0x01)
    /// `00 04`: card holder information.
    public static let cardHolderInformation = ClassicMADApplicationID(functionCluster: 0x00, applicationCode: 0x04)
    /// `E1 03`: an NFC Forum NDEF sector (stored `03 E1`).
    public static let ndef = ClassicMADApplicationID(functionCluster: 0xE1, applicationCode: 0x03)

    /// The two bytes as the card stores them.
    public var storedBytes: [UInt8] { [applicationCode, functionCluster] }

    public var description: String {
        "AID \([functionCluster, applicationCode].hexString)"
    }
}
