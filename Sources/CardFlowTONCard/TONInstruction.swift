/// The instruction bytes of the TonWalletApplet (CLA `B0`), with the names the seed library
/// reports as `cardInstruction` in error JSON.
public enum TONInstruction: UInt8, CaseIterable, Sendable, Hashable, CustomStringConvertible {
    case select = 0xA4
    case getAppInfo = 0xC1
    case getSerialNumber = 0xC2
    case setSerialNumber = 0x96
    case setEncryptedPassword = 0x91
    case setEncryptedCommonSecret = 0x94
    case finishPersonalization = 0x90
    case getHashOfEncryptedPassword = 0x93
    case getHashOfEncryptedCommonSecret = 0x95
    case verifyPassword = 0x92
    case getSault = 0xBD
    case verifyPin = 0xA2
    case getPublicKeyForDefaultPath = 0xA7
    case getPublicKey = 0xA0
    case signShortMessageForDefaultPath = 0xA5
    case signShortMessage = 0xA3
    case checkAvailableVolumeForNewKey = 0xB3
    case addKeyChunk = 0xB4
    case initiateChangeOfKey = 0xB5
    case changeKeyChunk = 0xB6
    case initiateDeleteKey = 0xB7
    case getKeyIndexAndLength = 0xB1
    case getKeyChunk = 0xB2
    case checkKeyHmacConsistency = 0xB0
    case getHmac = 0xBB
    case getNumberOfKeys = 0xB8
    case getFreeStorageSize = 0xB9
    case getOccupiedStorageSize = 0xBA
    case resetKeychain = 0xBC
    case deleteKeyChunk = 0xBE
    case deleteKeyRecord = 0xBF
    case getDeleteKeyChunkNumberOfPackets = 0xE1
    case getDeleteKeyRecordNumberOfPackets = 0xE2
    case getDeleteKeyChunkCounter = 0xE3
    case getDeleteKeyRecordCounter = 0xE4
    case addRecoveryDataPart = 0xD1
    case getRecoveryDataPart = 0xD2
    case getRecoveryDataHash = 0xD3
    case getRecoveryDataLength = 0xD4
    case resetRecoveryData = 0xD5
    case isRecoveryDataSet = 0xD6

    /// The seed library's name of the instruction (its `cardInstruction`), e.g. `"VERIFY_PIN"`.
    public var name: String {
        switch self {
        case .select: "SELECT_TON_APPLET"
        case .getAppInfo: "GET_APP_INFO"
        case .getSerialNumber: "GET_SERIAL_NUMBER"
        case .setSerialNumber: "SET_SERIAL_NUMBER"
        case .setEncryptedPassword: "SET_ENCRYPTED_PASSWORD_FOR_CARD_AUTHENTICATION"
        case .setEncryptedCommonSecret: "SET_ENCRYPTED_COMMON_SECRET"
        case .finishPersonalization: "FINISH_PERS"
        case .getHashOfEncryptedPassword: "GET_HASH_OF_ENCRYPTED_PASSWORD"
        case .getHashOfEncryptedCommonSecret: "GET_HASH_OF_ENCRYPTED_COMMON_SECRET"
        case .verifyPassword: "VERIFY_PASSWORD"
        case .getSault: "GET_SAULT"
        case .verifyPin: "VERIFY_PIN"
        case .getPublicKeyForDefaultPath: "GET_PUBLIC_KEY_WITH_DEFAULT_HD_PATH"
        case .getPublicKey: "GET_PUBLIC_KEY"
        case .signShortMessageForDefaultPath: "SIGN_SHORT_MESSAGE_WITH_DEFAULT_PATH"
        case .signShortMessage: "SIGN_SHORT_MESSAGE"
        case .checkAvailableVolumeForNewKey: "CHECK_AVAILABLE_VOL_FOR_NEW_KEY"
        case .addKeyChunk: "ADD_KEY_CHUNK"
        case .initiateChangeOfKey: "INITIATE_CHANGE_OF_KEY"
        case .changeKeyChunk: "CHANGE_KEY_CHUNK"
        case .initiateDeleteKey: "INITIATE_DELETE_KEY"
        case .getKeyIndexAndLength: "GET_KEY_INDEX_IN_STORAGE_AND_LEN"
        case .getKeyChunk: "GET_KEY_CHUNK"
        case .checkKeyHmacConsistency: "CHECK_KEY_HMAC_CONSISTENCY"
        case .getHmac: "GET_HMAC"
        case .getNumberOfKeys: "GET_NUMBER_OF_KEYS"
        case .getFreeStorageSize: "GET_FREE_STORAGE_SIZE"
        case .getOccupiedStorageSize: "GET_OCCUPIED_STORAGE_SIZE"
        case .resetKeychain: "RESET_KEYCHAIN"
        case .deleteKeyChunk: "DELETE_KEY_CHUNK"
        case .deleteKeyRecord: "DELETE_KEY_RECORD"
        case .getDeleteKeyChunkNumberOfPackets: "GET_DELETE_KEY_CHUNK_NUM_OF_PACKETS"
        case .getDeleteKeyRecordNumberOfPackets: "GET_DELETE_KEY_RECORD_NUM_OF_PACKETS"
        case .getDeleteKeyChunkCounter: "GET_DELETE_KEY_CHUNK_COUNTER"
        case .getDeleteKeyRecordCounter: "GET_DELETE_KEY_RECORD_COUNTER"
        case .addRecoveryDataPart: "ADD_RECOVERY_DATA_PART"
        case .getRecoveryDataPart: "GET_RECOVERY_DATA_PART"
        case .getRecoveryDataHash: "GET_RECOVERY_DATA_HASH"
        case .getRecoveryDataLength: "GET_RECOVERY_DATA_LEN"
        case .resetRecoveryData: "RESET_RECOVERY_DATA"
        case .isRecoveryDataSet: "IS_RECOVERY_DATA_SET"
        }
    }

    /// Whether the data field carries `payload | sault | HMAC` (section 3.4).
    public var isProtected: Bool {
        switch self {
        case .verifyPin, .signShortMessage, .signShortMessageForDefaultPath,
            .checkKeyHmacConsistency, .getKeyIndexAndLength, .getKeyChunk, .checkAvailableVolumeForNewKey,
            .addKeyChunk, .initiateChangeOfKey, .changeKeyChunk, .initiateDeleteKey, .getNumberOfKeys,
            .getFreeStorageSize, .getOccupiedStorageSize, .getHmac, .resetKeychain, .deleteKeyChunk,
            .deleteKeyRecord, .getDeleteKeyChunkNumberOfPackets, .getDeleteKeyRecordNumberOfPackets,
            .getDeleteKeyChunkCounter, .getDeleteKeyRecordCounter:
            true
        default:
            false
        }
    }

    public var description: String { name }
}
