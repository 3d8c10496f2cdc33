/// What a secret's name in a ``KeyStore`` may look like: 1 to 128 characters from ASCII letters,
/// digits and `. _ - : @ + /`, e.g. `"ton.hmac.04A1B2C3"`.
///
/// Names appear in listings, logs and file contents, so control characters, spaces and non-ASCII
/// text are kept out.
public enum SecretNameRule {
    public static let maxLength = 128
    private static let punctuation: Set<UInt8> = Set(".-_:@+/".utf8)

    public static func isValid(_ name: String) -> Bool {
        let utf8 = name.utf8
        guard !utf8.isEmpty, utf8.count <= maxLength else { return false }
        return utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"):
                true
            default:
                punctuation.contains(byte)
            }
        }
    }

    static func validate(_ name: String) throws(KeyStoreError) {
        guard isValid(name) else { throw .invalidSecretName(name) }
    }
}
