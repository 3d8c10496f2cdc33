/// DESFire native command codes (EV1, and the EV2 commands the client sends) (sent as the INS byte of a `90 xx 00 00` wrapped APDU).
public enum DESFireCommand: UInt8, Sendable, CaseIterable, CustomStringConvertible {
    case getVersion = 0x60
    case getCardUID = 0x51
    case formatPICC = 0xFC
    case getFreeMemory = 0x6E
    case getApplicationIDs = 0x6A
    case getDFNames = 0x6D
    case selectApplication = 0x5A
    case createApplication = 0xCA
    case deleteApplication = 0xDA
    case getKeySettings = 0x45
    case changeKeySettings = 0x54
    case getKeyVersion = 0x64
    case changeKey = 0xC4
    case authenticateLegacy = 0x0A
    case authenticateISO = 0x1A
    case authenticateAES = 0xAA
    case additionalFrame = 0xAF
    case setConfiguration = 0x5C
    case getFileIDs = 0x6F
    case getISOFileIDs = 0x61
    case getFileSettings = 0xF5
    case changeFileSettings = 0x5F
    case createStdDataFile = 0xCD
    case createBackupDataFile = 0xCB
    case createValueFile = 0xCC
    case createLinearRecordFile = 0xC1
    case createCyclicRecordFile = 0xC0
    case deleteFile = 0xDF
    case readData = 0xBD
    case writeData = 0x3D
    case getValue = 0x6C
    case credit = 0x0C
    case debit = 0xDC
    case limitedCredit = 0x1C
    case writeRecord = 0x3B
    case readRecords = 0xBB
    case clearRecordFile = 0xEB
    case commitTransaction = 0xC7
    case abortTransaction = 0xA7
    case authenticateEV2First = 0x71
    case authenticateEV2NonFirst = 0x77
    case createTransactionMACFile = 0xCE

    private static let names: [String] = [
        "GetVersion", "GetCardUID", "FormatPICC", "GetFreeMemory", "GetApplicationIDs", "GetDFNames",
        "SelectApplication", "CreateApplication", "DeleteApplication", "GetKeySettings", "ChangeKeySettings",
        "GetKeyVersion", "ChangeKey", "AuthenticateLegacy", "AuthenticateISO", "AuthenticateAES", "AdditionalFrame",
        "SetConfiguration", "GetFileIDs", "GetISOFileIDs", "GetFileSettings", "ChangeFileSettings", "CreateStdDataFile",
        "CreateBackupDataFile", "CreateValueFile", "CreateLinearRecordFile", "CreateCyclicRecordFile", "DeleteFile",
        "ReadData", "WriteData", "GetValue", "Credit", "Debit", "LimitedCredit", "WriteRecord", "ReadRecords",
        "ClearRecordFile", "CommitTransaction", "AbortTransaction", "AuthenticateEV2First", "AuthenticateEV2NonFirst",
        "CreateTransactionMACFile",
    ]

    /// The command's name, e.g. `"ReadData"`.
    public var name: String { Self.names[Self.allCases.firstIndex(of: self)!] }

    /// For example `"ReadData (BD)"`.
    public var description: String { "\(name) (\([rawValue].hexString))" }
}
