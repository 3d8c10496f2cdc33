/// The life-cycle state of the TonWalletApplet, as GET_APP_INFO (`B0 C1 00 00 01`) returns it.
///
/// ```swift
/// let state = try await wallet.appletState()
/// if state == .waitingForAuthentication { … activate … }
/// print(state.message)     // "TonWalletApplet waits two-factor authentication."
/// ```
public enum TONAppletState: UInt8, CaseIterable, Sendable, CustomStringConvertible {
    /// `07`: installed, factory personalization not finished.
    case installed = 0x07
    /// `27`: waits for the activation password (two-factor authentication).
    case waitingForAuthentication = 0x27
    /// `17`: activated; the wallet functions are available.
    case personalized = 0x17
    /// `37`: a keychain delete was started and must be finished.
    case deletingKey = 0x37
    /// `47`: blocked for good (too many wrong passwords or HMAC failures).
    case blocked = 0x47

    /// The seed library's text for the state (exact, including the missing final period of `07`).
    public var message: String {
        switch self {
        case .installed: "TonWalletApplet is invalid (is not personalized)"
        case .waitingForAuthentication: "TonWalletApplet waits two-factor authentication."
        case .personalized: "TonWalletApplet is personalized."
        case .deletingKey: "TonWalletApplet is personalized and waits finishing key deleting from keychain."
        case .blocked: "TonWalletApplet is blocked."
        }
    }

    public var description: String { message }

    /// The instructions the applet accepts in this state (anything else is answered `6D00`).
    public var acceptedInstructions: Set<TONInstruction> {
        switch self {
        case .installed:
            [
                .getAppInfo, .finishPersonalization, .setEncryptedPassword, .getHashOfEncryptedPassword,
                .setEncryptedCommonSecret, .getHashOfEncryptedCommonSecret, .setSerialNumber, .getSerialNumber,
            ]
        case .waitingForAuthentication:
            [
                .getAppInfo, .getHashOfEncryptedPassword, .getHashOfEncryptedCommonSecret, .getSerialNumber,
                .verifyPassword,
            ]
        case .personalized:
            Self.walletInstructions.union([
                .checkAvailableVolumeForNewKey, .addKeyChunk, .initiateChangeOfKey,
                .changeKeyChunk, .initiateDeleteKey,
            ])
        case .deletingKey:
            Self.walletInstructions.union([
                .deleteKeyChunk, .deleteKeyRecord, .getDeleteKeyChunkNumberOfPackets,
                .getDeleteKeyRecordNumberOfPackets, .getDeleteKeyChunkCounter,
                .getDeleteKeyRecordCounter,
            ])
        case .blocked:
            [.getAppInfo, .getSerialNumber]
        }
    }

    /// What both `17` and `37` accept.
    private static let walletInstructions: Set<TONInstruction> = [
        .getKeyIndexAndLength, .getKeyChunk, .getNumberOfKeys, .getFreeStorageSize, .getOccupiedStorageSize,
        .getHmac, .resetKeychain, .checkKeyHmacConsistency, .getSault, .getPublicKey, .getPublicKeyForDefaultPath,
        .signShortMessage, .signShortMessageForDefaultPath, .verifyPin, .addRecoveryDataPart, .getRecoveryDataPart,
        .getRecoveryDataHash, .getRecoveryDataLength, .resetRecoveryData, .isRecoveryDataSet, .getSerialNumber,
        .getAppInfo,
    ]
}
