import CardFlow

/// A native instruction byte sent over the EV2 secure channel (DESFire EV2/EV3, NTAG 424 DNA).
///
/// Any byte is an instruction; the ones the EV2 examples of AN12196 use have names, so errors and
/// logs read `WriteData (8D)` rather than `8D`. New instructions need no new case: `EV2Instruction(0x6E)`.
///
/// ```swift
/// let apdu = try session.command(.getFileSettings, header: [0x02], mode: .mac)
/// EV2Instruction(0x8D).description   // "WriteData (8D)"
/// ```
public struct EV2Instruction: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The INS byte of the ISO-wrapped native command (`90 INS 00 00 …`).
    public let rawValue: UInt8

    public init(rawValue: UInt8) {
        self.rawValue = rawValue
    }

    /// The instruction with this INS byte.
    public init(_ rawValue: UInt8) {
        self.rawValue = rawValue
    }

    /// `71`: first authentication of a transaction (new TI, command counter 0).
    public static let authenticateEV2First = EV2Instruction(0x71)
    /// `77`: re-authentication inside a transaction (TI and command counter kept).
    public static let authenticateEV2NonFirst = EV2Instruction(0x77)
    /// `AF`: the next frame of a chained command or answer.
    public static let additionalFrame = EV2Instruction(0xAF)
    /// `51`: the real UID (answer always enciphered).
    public static let getCardUID = EV2Instruction(0x51)
    /// `60`: product and production data.
    public static let getVersion = EV2Instruction(0x60)
    /// `64`: the version of a key.
    public static let getKeyVersion = EV2Instruction(0x64)
    /// `5C`: PICC configuration (random ID, failed-authentication counter, …).
    public static let setConfiguration = EV2Instruction(0x5C)
    /// `C4`: change a key (cryptogram from ``EV2ChangeKey``).
    public static let changeKey = EV2Instruction(0xC4)
    /// `F5`: the settings of a file.
    public static let getFileSettings = EV2Instruction(0xF5)
    /// `5F`: change the settings of a file (SDM included).
    public static let changeFileSettings = EV2Instruction(0x5F)
    /// `F6`: the SDM read counter of a file.
    public static let getFileCounters = EV2Instruction(0xF6)
    /// `AD`: read a data file (NTAG 424 DNA; DESFire EV2 also accepts it).
    public static let readData = EV2Instruction(0xAD)
    /// `8D`: write a data file (NTAG 424 DNA; DESFire EV2 also accepts it).
    public static let writeData = EV2Instruction(0x8D)
    /// `3C`: the originality signature.
    public static let readSignature = EV2Instruction(0x3C)

    private static let names: [UInt8: String] = [
        0x71: "AuthenticateEV2First", 0x77: "AuthenticateEV2NonFirst", 0xAF: "AdditionalFrame",
        0x51: "GetCardUID", 0x60: "GetVersion", 0x64: "GetKeyVersion", 0x5C: "SetConfiguration",
        0xC4: "ChangeKey", 0xF5: "GetFileSettings", 0x5F: "ChangeFileSettings", 0xF6: "GetFileCounters",
        0xAD: "ReadData", 0x8D: "WriteData", 0x3C: "ReadSig",
    ]

    /// The command's name in the data sheets, e.g. `"WriteData"`, or `nil` for an unnamed byte.
    public var name: String? { Self.names[rawValue] }

    /// For example `"WriteData (8D)"`, or `"6E"` for an unnamed byte.
    public var description: String {
        let code = [rawValue].hexString
        return name.map { "\($0) (\(code))" } ?? code
    }
}
