/// Status words of the TonWalletApplet and the CoinManager (spec §7.1), internal to the model.
enum TONStatus {
    static let success: UInt16 = 0x9000
    static let wrongLength: UInt16 = 0x6700
    static let conditionsNotSatisfied: UInt16 = 0x6985
    static let wrongData: UInt16 = 0x6A80
    static let fileNotFound: UInt16 = 0x6A82
    static let incorrectP1P2: UInt16 = 0x6A86
    static let insNotSupported: UInt16 = 0x6D00
    static let claNotSupported: UInt16 = 0x6E00

    static let personalizationNotFinished: UInt16 = 0x4F01
    static let incorrectPayload: UInt16 = 0x4F03
    static let incorrectPassword: UInt16 = 0x5F00
    static let passwordBlocked: UInt16 = 0x5F01

    static let setCurveFailed: UInt16 = 0x6F02
    static let getCoinPubDataFailed: UInt16 = 0x6F03
    static let signDataFailed: UInt16 = 0x6F04
    static let incorrectPIN: UInt16 = 0x6F07
    static let pinTriesExpired: UInt16 = 0x6F08
    static let incorrectRecoveryRange: UInt16 = 0x6F0A
    static let recoveryHashIncorrect: UInt16 = 0x6F0B
    static let recoveryDataExists: UInt16 = 0x6F0C
    static let recoveryDataMissing: UInt16 = 0x6F0D

    static let coinManagerWrongPIN: UInt16 = 0x9B01
    static let coinManagerStatusNotSupported: UInt16 = 0x9B02

    static let incorrectKeyIndex: UInt16 = 0x7F00
    static let incorrectKeyChunkRange: UInt16 = 0x7F01
    static let incorrectKeyChunkLength: UInt16 = 0x7F02
    static let notEnoughSpace: UInt16 = 0x7F03
    static let keySizeUnknown: UInt16 = 0x7F04
    static let keyLengthIncorrect: UInt16 = 0x7F05
    static let hmacExists: UInt16 = 0x7F06
    static let incorrectKeyIndexToChange: UInt16 = 0x7F07
    static let maxKeysExceeded: UInt16 = 0x7F08
    static let deleteChunkNotFinished: UInt16 = 0x7F09

    static let incorrectSault: UInt16 = 0x8F01
    static let dataIntegrityCorrupted: UInt16 = 0x8F02
    static let incorrectHMAC: UInt16 = 0x8F03
    static let hmacTriesExpired: UInt16 = 0x8F04

    static let serialNumberNotSet: UInt16 = 0xA001
    static let serialNumberInvalid: UInt16 = 0xA002
}

/// A response APDU under construction (internal): data then SW1 SW2.
enum TONResponse {
    static func status(_ sw: UInt16) -> [UInt8] { [UInt8(sw >> 8), UInt8(sw & 0xFF)] }
    static func data(_ bytes: [UInt8]) -> [UInt8] { bytes + [0x90, 0x00] }
    static func uint16(_ value: Int) -> [UInt8] { [UInt8((value >> 8) & 0xFF), UInt8(value & 0xFF)] }
}
