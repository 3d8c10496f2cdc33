/// The parameters of an `ntag-ndef-protect` flow: write an NDEF message on an NTAG213/215/216
/// or Ultralight EV1, then protect it with a password.
///
/// ```json
/// {"kind": "ntag-ndef-protect", "uri": "https://example.org", "passwordSecret": "ntag-pwd", "pack": "BEEF",
///  "auth0": 4}
/// ```
///
/// The password (4 bytes) comes from the key store's secret `passwordSecret`, or from `password`
/// in hex: unlike a key it travels in clear on RF each time it is used, so it is an
/// anti-overwrite lock, not security. `pack` (2 bytes, hex) is the acknowledgement the tag
/// answers PWD_AUTH with. From page `auth0` on (default 4: the whole NDEF area), writes need the
/// password; `protectReads` makes reads need it too (PROT), `authenticationLimit` (AUTHLIM 0–7)
/// blocks the password for good after 2^N failed attempts. A tag that is already protected is
/// authenticated with the same password first, so running the flow twice is harmless;
/// `currentPassword`/`currentPasswordSecret` name the password protected tags carry now (to
/// change it): it is tried instead, so a tag that already has the new one then fails.
public struct NTAGNDEFRule: Sendable, Hashable, Codable {
    public var content: FlowSpecification.NDEFContent
    public var password: [UInt8]?
    public var passwordSecret: String?
    public var currentPassword: [UInt8]?
    public var currentPasswordSecret: String?
    public var pack: [UInt8]
    public var auth0: Int
    public var protectReads: Bool
    public var authenticationLimit: Int

    public init(
        content: FlowSpecification.NDEFContent, password: [UInt8]? = nil, passwordSecret: String? = nil,
        currentPassword: [UInt8]? = nil, currentPasswordSecret: String? = nil, pack: [UInt8], auth0: Int = 4,
        protectReads: Bool = false, authenticationLimit: Int = 0
    ) {
        self.content = content
        self.password = password
        self.passwordSecret = passwordSecret
        self.currentPassword = currentPassword
        self.currentPasswordSecret = currentPasswordSecret
        self.pack = pack
        self.auth0 = auth0
        self.protectReads = protectReads
        self.authenticationLimit = authenticationLimit
    }

    /// Whether the flow needs the key store (a password named by secret).
    public var needsKeyStore: Bool { passwordSecret != nil || currentPasswordSecret != nil }

    enum CodingKeys: String, CodingKey {
        case uri, text, password, passwordSecret, currentPassword, currentPasswordSecret, pack, auth0, protectReads
        case authenticationLimit
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        func fail(_ key: CodingKeys, _ message: String) -> DecodingError {
            DecodingError.dataCorruptedError(forKey: key, in: container, debugDescription: message)
        }
        if let uri = try container.decodeIfPresent(String.self, forKey: .uri) {
            content = .uri(uri)
        } else if let text = try container.decodeIfPresent(String.self, forKey: .text) {
            content = .text(text)
        } else {
            throw fail(.uri, "ntag-ndef-protect needs 'uri' or 'text'")
        }
        password = try container.decodeIfPresent(HexBytes.self, forKey: .password)?.bytes
        passwordSecret = try container.decodeIfPresent(String.self, forKey: .passwordSecret)
        currentPassword = try container.decodeIfPresent(HexBytes.self, forKey: .currentPassword)?.bytes
        currentPasswordSecret = try container.decodeIfPresent(String.self, forKey: .currentPasswordSecret)
        pack = try container.decode(HexBytes.self, forKey: .pack).bytes
        auth0 = try container.decodeIfPresent(Int.self, forKey: .auth0) ?? 4
        protectReads = try container.decodeIfPresent(Bool.self, forKey: .protectReads) ?? false
        authenticationLimit = try container.decodeIfPresent(Int.self, forKey: .authenticationLimit) ?? 0
        guard (password == nil) != (passwordSecret == nil) else {
            throw fail(.password, "exactly one of 'password' (4 bytes, hex) and 'passwordSecret'")
        }
        if let password, password.count != 4 { throw fail(.password, "a password has 4 bytes") }
        if let currentPassword, currentPassword.count != 4 { throw fail(.currentPassword, "a password has 4 bytes") }
        if currentPassword != nil && currentPasswordSecret != nil {
            throw fail(.currentPassword, "at most one of 'currentPassword' and 'currentPasswordSecret'")
        }
        guard pack.count == 2 else { throw fail(.pack, "PACK has 2 bytes (hex)") }
        guard (3...255).contains(auth0) else { throw fail(.auth0, "a page from 3 to 255 (255: no protection)") }
        guard (0...7).contains(authenticationLimit) else { throw fail(.authenticationLimit, "AUTHLIM from 0 to 7") }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        switch content {
        case .uri(let uri): try container.encode(uri, forKey: .uri)
        case .text(let text): try container.encode(text, forKey: .text)
        }
        try container.encodeIfPresent(password.map(HexBytes.init), forKey: .password)
        try container.encodeIfPresent(passwordSecret, forKey: .passwordSecret)
        try container.encodeIfPresent(currentPassword.map(HexBytes.init), forKey: .currentPassword)
        try container.encodeIfPresent(currentPasswordSecret, forKey: .currentPasswordSecret)
        try container.encode(HexBytes(pack), forKey: .pack)
        try container.encode(auth0, forKey: .auth0)
        try container.encode(protectReads, forKey: .protectReads)
        try container.encode(authenticationLimit, forKey: .authenticationLimit)
    }
}
