/// The seed library's error catalogue (section 7.3): every library error code with its message.
///
/// Codes are `typeId` followed by a 4-digit index (e.g. `30006` is type 3, input format);
/// some messages end with a space because the library appends details to them.
public enum TONErrorCatalogue {
    /// The message of `code`, or `nil` for a code outside the catalogue.
    public static func message(for code: Int) -> String? { messages[code] }

    /// The error type id of `code`: its leading digit(s) (`21` for the 21xxxx NFC codes).
    public static func typeId(of code: Int) -> Int {
        code / 10_000
    }

    /// The seed's description of an error type id, e.g. `"Native code fail: incorrect format of input data"`.
    public static func typeName(of typeId: Int) -> String {
        switch typeId {
        case 0: "Applet fail: card operation error"
        case 1: "iOS code fail: internal error"
        case 2: "Native code fail: NFC connection interruption"
        case 21: "iOS code fail: NFC error"
        case 3: "Native code fail: incorrect format of input data"
        case 4: "Native code fail: incorrect response from card"
        case 5: "Native code fail: improper applet state"
        case 6: "Native code (iOS) fail: hmac key issue"
        case 7: "Native code fail: wrong card"
        default: "Unknown error type"
        }
    }

    static let messages: [Int: String] = [
        10000: "Card operation for ApduRunner is not set.",
        10001: "Apdu command is null",
        10002: "Datafield in APDU must have length > 0 and <= 255 bytes.",
        10003: "APDU response bytes are incorrect. It must contain at least 2 bytes of status word (SW) from the card.",
        10004: "APDU response is incorrect. Response from the card can not contain > 255 bytes.",
        10005: "Pin byte array must have length 4.",
        10006: "Device label byte array must have length 32.",
        10007: "Activation password byte array must have length 128.",
        10008: "Initial vector byte array must have length 16.",
        10009: "Data for signing byte array must have length > 0 and <= 189.",
        10010: "Data for signing byte array must have length > 0 and <= 178.",
        10011: "APDU parameter P2 must take value from {0, 1, 2}.",
        10012: "Key (from keyChain) chunk byte array must have length > 0 and <= 128.",
        10013: "Key (from keyChain) mac byte array must have length 32.",
        10014: "Sault byte array must have length 32.",
        10015: "hdIndex byte array must have length > 0 and <= 10.",
        10016: "Key (from keyChain) index byte array must have length = 2.",
        10017: "Data field of APDU command must have length > 0 and <= 255.",
        10018: "Byte array representation of key (from keyChain) size must have length = 2.",
        10019: "Byte array representation of start position must have length = 2.",
        10020: "Le value must be >= -1 and <= 255.",
        20000: "Nfc connection was interrupted by user.",
        210000: "NFC session is not established (session is empty).",
        210001: "NFC Tag is not detected.",
        210002: "Can not establish connection with NFC Tag, more details:",
        30000: "Activation password is a hex string of length 256.",
        30001: "Common secret is a hex string of length 64.",
        30002: "Initial vector is a hex string of length 32.",
        30003: "Activation password is not a valid hex string.",
        30004: "Common secret is not a valid hex string.",
        30005: "Initial vector is not a valid hex string.",
        30006: "Pin must be a numeric string of length 4.",
        30007: "Pin is not a valid numeric string.",
        30008: "Data for signing is not a valid hex.",
        30009: "Data for signing must be a nonempty hex string of even length > 0 and <= 378.",
        30010: "Data for signing must be a nonempty hex string of even length > 0 and <= 356.",
        30011: "Recovery data is not a valid hex string.",
        30012: "Recovery data is a hex string of length > 0 and <= 4096.",
        30013: "Hd index must be a numeric string of length > 0 and <= 10.",
        30014: "Hd index is not a valid numeric string.",
        30015: "Device label must be a hex string of length 64.",
        30016: "Device label is not a valid hex string.",
        30017: "Key hmac is a hex string of length 64.",
        30018: "Key hmac is not a valid hex string.",
        30019: "Key is not a valid hex string.",
        30020: "Key is a hex string of length > 0 and <= 16384.",
        30021: "Key size must be > 0 and <= 8192.",
        30022: "Length of new key must be equal to length of old key ",
        30023: "Key index is a numeric string representing integer >= 0 and <= 1022.",
        30024: "Key index is not a valid numeric string.",
        30025: "Serial number is a numeric string of length 24.",
        30026: "Serial number is not a valid numeric string.",
        40000: "Sault response from card must have length 32. Current length is ",
        40001: "Applet state response from card must have length 1. Current length is ",
        40002: "Unknown applet state = ",
        40003: "Recovery data hash must have length 32.",
        40004: "Recovery data length byte array must have length 2.",
        40005: "Recovery data length must be > 0 and <= 2048.",
        40006: "Response from IS_RECOVERY_DATA_SET card operation must have length 1.",
        40007: "Recovery data portion must have length = ",
        40008: "Hash of encrypted password must have length 32.",
        40009: "Hash of encrypted common secret must have length 32.",
        40010: "Card two-factor authentication failed: Hash of encrypted common secret is invalid.",
        40011: "Card two-factor authentication failed: Hash of encrypted password is invalid.",
        40012: "Signature must have length 64.",
        40013: "Public key must have length 32.",
        40014: "Response from GET_NUMBER_OF_KEYS card operation must have length 2.",
        40015: "Number of keys in keychain must be > 0 and <= 1023.",
        40016: "Response from GET_OCCUPIED_SIZE card operation must have length 2.",
        40017: "Response from GET_FREE_SIZE_RESPONSE card operation must have length 2.",
        40018: "Occupied size in keychain can not be negative.",
        40019: "Free size in keychain can not be negative.",
        40020: "Response from GET_KEY_INDEX_IN_STORAGE_AND_LEN card operation must have length 4.",
        40021: "Key index must be >= 0 and <= 1022.",
        40022: "Key length (in keychain) must be > 0 and <= 8192.",
        40023: "Response from DELETE_KEY_CHUNK card operation must have length 1.",
        40024: "Response from DELETE_KEY_CHUNK card operation must have value 0 or 1.",
        40025: "Response from DELETE_KEY_RECORD card operation must have length 1.",
        40026: "Response from DELETE_KEY_RECORD card operation must have value 0 or 1.",
        40027: "Response from GET_DELETE_KEY_CHUNK_NUM_OF_PACKETS card operation must have length 2.",
        40028: "Response from GET_DELETE_KEY_CHUNK_NUM_OF_PACKETS card operation can not be negative.",
        40029: "Response from GET_DELETE_KEY_RECORD card operation must have length 2.",
        40030: "Response from GET_DELETE_KEY_RECORD_NUM_OF_PACKETS card operation can not be negative.",
        40031: "After ADD_KEY card operation number of keys must be increased by 1.",
        40032: "After CHANGE_KEY card operation number of keys must not be changed.",
        40033: "Response from SEND_CHUNK card operation must have length 2.",
        40034: "Hash of key (from keychain) must have length 32.",
        40035: "Response from INITIATE_DELETE_KEY card operation must have length 2.",
        40036: "Key data portion must have length = ",
        40037: "Response from GET_SERIAL_NUMBER number must have length 24.",
        40038: "Response from GET_PIN_TLT (GET_PIN_RTL) must have length > 0.",
        40039: "Response from GET_PIN_TLT (GET_PIN_RTL) must have value >= 0 and <= 10.",
        40040: "Response from GET_ROOT_KEY_STATUS must have length > 0.",
        40041: "Response from GET_DEVICE_LABEL must have length = 32.",
        40042: "Response from GET_CSN_VERSION must have length > 0.",
        40043: "Response from GET_SE_VERSION must have length > 0.",
        40044: "Response from GET_AVAILABLE_MEMORY must have length > 0.",
        40045: "Response from GET_APPLET_LIST must have length > 0.",
        // Not in the seed: packet counts an interrupted delete cannot need, since the keychain
        // holds at most 32767 bytes in 1023 keys (the seed looped as long as the card said).
        40046:
            "Response from GET_DELETE_KEY_CHUNK_NUM_OF_PACKETS card operation must be <= 255 (keychain memory), it is ",
        40047:
            "Response from GET_DELETE_KEY_RECORD_NUM_OF_PACKETS card operation must be <= 85 (keychain records), it is ",
        50000: "APDU command is not supported",
        50001: "Applet must be in mode that waits authentication. Now it is: ",
        50002: "Applet must be in personalized mode. Now it is: ",
        50003: "Applet must be in mode for deleting key. Now it is: ",
        60000: "Key for hmac signing for specified serial number does not exist.",
        60001: "Current serial number is not set. Can not select key for hmac.",
        60002: "Unable to retrieve any key from keychain.",
        60003: "Unable to retrieve info about key from keychain.",
        60004: "Unable to save key into keychain.",
        60005: "Unable to delete key from keychain.",
        60006: "Unable to update key in keychain.",
        70000: "You try to use security card with incorrect serial number. ",
    ]
}
