import CardFlow

/// The command APDUs of the TonWalletApplet and the CoinManager with their exact Le (section
/// 2.4/2.5; the applet answers `6700` to any other Le). Protected commands are built from their
/// payload by ``TONProtectedCommand``.
///
/// ```swift
/// TONCommands.selectApplet         // 00 A4 04 00 0C 313132323333343435353636
/// TONCommands.getAppInfo           // B0 C1 00 00 01
/// ```
public enum TONCommands {
    /// The TON applet AID, ASCII "112233445566" (the package AID; SELECT matches the instance by prefix).
    public static let appletAID: [UInt8] = Array("112233445566".utf8)
    /// The CoinManager (GP ISD) AID.
    public static let coinManagerAID: [UInt8] = [0xA0, 0x00, 0x00, 0x01, 0x51, 0x00, 0x00, 0x00]
    /// CLA of the TON applet.
    public static let cla: UInt8 = 0xB0

    static func make(_ cla: UInt8, _ ins: UInt8, p1: UInt8 = 0, p2: UInt8 = 0, data: [UInt8] = [], le: Int? = nil)
        throws(TONError) -> CommandAPDU
    {
        guard data.count <= 255 else { throw .library(code: 10002) }
        guard let command = try? CommandAPDU(cla: cla, ins: ins, p1: p1, p2: p2, data: data, le: le) else {
            throw .library(code: 10020)
        }
        return command
    }

    static func applet(_ ins: TONInstruction, p1: UInt8 = 0, data: [UInt8] = [], le: Int? = nil) throws(TONError)
        -> CommandAPDU
    {
        try make(cla, ins.rawValue, p1: p1, data: data, le: le)
    }

    // MARK: Selection

    /// S_T: `00 A4 04 00 0C 313132323333343435353636` (no Le, as the Swift seed).
    public static let selectApplet = constant(0x00, ins: 0xA4, p1: 0x04, p2: 0x00, data: appletAID, le: nil)
    /// S_C: `00 A4 04 00 08 A000000151000000` (no Le).
    public static let selectCoinManager = constant(0x00, ins: 0xA4, p1: 0x04, p2: 0x00, data: coinManagerAID, le: nil)

    // MARK: Unprotected applet commands

    /// `B0 C1 00 00 01`.
    public static let getAppInfo = constant(cla, ins: 0xC1, p1: 0, p2: 0, data: [], le: 1)
    /// `B0 C2 00 00 18`.
    public static let getSerialNumber = constant(cla, ins: 0xC2, p1: 0, p2: 0, data: [], le: 0x18)
    /// `B0 BD 00 00 20`.
    public static let getSault = constant(cla, ins: 0xBD, p1: 0, p2: 0, data: [], le: 0x20)
    /// `B0 93 00 00 20`.
    public static let getHashOfEncryptedPassword = constant(cla, ins: 0x93, p1: 0, p2: 0, data: [], le: 0x20)
    /// `B0 95 00 00 20`.
    public static let getHashOfEncryptedCommonSecret = constant(cla, ins: 0x95, p1: 0, p2: 0, data: [], le: 0x20)
    /// `B0 A7 00 00 20`.
    public static let getPublicKeyForDefaultPath = constant(cla, ins: 0xA7, p1: 0, p2: 0, data: [], le: 0x20)
    /// `B0 D3 00 00 20`.
    public static let getRecoveryDataHash = constant(cla, ins: 0xD3, p1: 0, p2: 0, data: [], le: 0x20)
    /// `B0 D4 00 00 02`.
    public static let getRecoveryDataLength = constant(cla, ins: 0xD4, p1: 0, p2: 0, data: [], le: 2)
    /// `B0 D5 00 00`.
    public static let resetRecoveryData = constant(cla, ins: 0xD5, p1: 0, p2: 0, data: [], le: nil)
    /// `B0 D6 00 00 01`.
    public static let isRecoveryDataSet = constant(cla, ins: 0xD6, p1: 0, p2: 0, data: [], le: 1)

    /// `B0 92 00 00 90 | P1 | IV`.
    public static func verifyPassword(_ activation: TONActivationData) throws(TONError) -> CommandAPDU {
        try applet(.verifyPassword, data: activation.verifyPasswordData)
    }

    /// `B0 A0 00 00 Lc | index digits | 20`.
    public static func getPublicKey(_ index: TONHDIndex) throws(TONError) -> CommandAPDU {
        try applet(.getPublicKey, data: index.bytes, le: 0x20)
    }

    /// `B0 D1 P1 00 Lc chunk`: P1 `00` first chunk, `01` next chunks.
    public static func addRecoveryDataPart(_ chunk: [UInt8], first: Bool) throws(TONError) -> CommandAPDU {
        try applet(.addRecoveryDataPart, p1: first ? 0x00 : 0x01, data: chunk)
    }

    /// `B0 D1 02 00 20 SHA256(data)`: the final part.
    public static func finishRecoveryData(hash: [UInt8]) throws(TONError) -> CommandAPDU {
        try applet(.addRecoveryDataPart, p1: 0x02, data: hash)
    }

    /// `B0 D2 00 00 02 startPos | Le`.
    public static func getRecoveryDataPart(start: Int, length: Int) throws(TONError) -> CommandAPDU {
        try applet(.getRecoveryDataPart, data: bigEndian(start), le: length)
    }

    // MARK: CoinManager (80 CB 80 00)

    private static func coinManager(_ data: [UInt8], le: Int?) -> CommandAPDU {
        constant(0x80, ins: 0xCB, p1: 0x80, p2: 0x00, data: data, le: le)
    }

    private static func coinManagerGet(_ tag: UInt8) -> CommandAPDU {
        coinManager([0xDF, 0xFF, 0x02, 0x81, tag], le: 256)
    }

    /// `80CB800005 DFFF028101 00`.
    public static let getCSN = coinManagerGet(0x01)
    /// `80CB800005 DFFF028102 00`.
    public static let getRemainingPinTries = coinManagerGet(0x02)
    /// `80CB800005 DFFF028103 00`.
    public static let getMaxPinTries = coinManagerGet(0x03)
    /// `80CB800005 DFFF028104 00`.
    public static let getDeviceLabel = coinManagerGet(0x04)
    /// `80CB800005 DFFF028105 00`.
    public static let getRootKeyStatus = coinManagerGet(0x05)
    /// `80CB800005 DFFF028106 00`.
    public static let getAppletList = coinManagerGet(0x06)
    /// `80CB800005 DFFF028109 00`.
    public static let getSEVersion = coinManagerGet(0x09)
    /// `80CB800005 DFFF028146 00`.
    public static let getAvailableMemory = coinManagerGet(0x46)
    /// `80CB800005 DFFE028205` (no Le).
    public static let resetWallet = coinManager([0xDF, 0xFE, 0x02, 0x82, 0x05], le: nil)

    /// `80CB80000B DFFE0882 0305 04 <PIN>`.
    public static func generateSeed(pin: TONPin) -> CommandAPDU {
        coinManager([0xDF, 0xFE, 0x08, 0x82, 0x03, 0x05, 0x04] + pin.bytes, le: nil)
    }

    /// `80CB800010 DFFE0D82 040A 04 <old> 04 <new>`.
    public static func changePin(old: TONPin, new: TONPin) -> CommandAPDU {
        coinManager([0xDF, 0xFE, 0x0D, 0x82, 0x04, 0x0A, 0x04] + old.bytes + [0x04] + new.bytes, le: nil)
    }

    /// `80CB800026 DFFE2381 04 20 <label 32 B>`.
    public static func setDeviceLabel(_ label: [UInt8]) throws(TONError) -> CommandAPDU {
        guard label.count == 32 else { throw .library(code: 10006) }
        return coinManager([0xDF, 0xFE, 0x23, 0x81, 0x04, 0x20] + label, le: nil)
    }

    /// A command whose fields are constants known to be in range (the bounds check cannot fail).
    private static func constant(_ cla: UInt8, ins: UInt8, p1: UInt8, p2: UInt8, data: [UInt8], le: Int?) -> CommandAPDU
    {
        do {
            return try CommandAPDU(cla: cla, ins: ins, p1: p1, p2: p2, data: data, le: le)
        } catch {
            preconditionFailure("TON command constants are within APDU bounds")
        }
    }

    static func bigEndian(_ value: Int) -> [UInt8] {
        [UInt8(truncatingIfNeeded: value >> 8), UInt8(truncatingIfNeeded: value)]
    }
}
