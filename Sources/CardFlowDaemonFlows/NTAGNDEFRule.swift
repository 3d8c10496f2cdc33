import CardFlow
import CardFlowDaemon
import CardFlowStorageCards

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
public struct NTAGNDEFRule: DaemonFlow, Hashable {
    public static let kind = "ntag-ndef-protect"
    public static let writesToCard = true

    public var content: NDEFContent
    public var password: [UInt8]?
    public var passwordSecret: String?
    public var currentPassword: [UInt8]?
    public var currentPasswordSecret: String?
    public var pack: [UInt8]
    public var auth0: Int
    public var protectReads: Bool
    public var authenticationLimit: Int

    public init(
        content: NDEFContent, password: [UInt8]? = nil, passwordSecret: String? = nil,
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

extension NTAGNDEFRule {
    /// The `ntag-ndef-protect` flow: identify, then on the NTAG21x / Ultralight EV1 — PWD_AUTH
    /// where the tag is protected already (with the rule's current password when it names one,
    /// else with its password and PACK: a second run on the same tag), the NDEF
    /// message written and read back, PWD and PACK set, ACCESS and AUTH0 written last.
    ///
    /// - Throws: ``/CardFlowDaemon/DaemonFlowError/missingSecret(_:)`` for a named secret the store lacks, and
    ///   ``/CardFlowStorageCards/StorageCardError/invalidArgument(_:)`` for a secret that is no 4-byte
    ///   password — both before a tag is touched.
    public func job(_ context: DaemonFlowContext) async throws -> FlowJob {
        let rule = self
        let keys = needsKeyStore ? try context.requiredKeys() : context.keys
        func password(_ bytes: [UInt8]?, secret: String?) async throws -> Type2Password? {
            if let bytes { return try Type2Password(bytes) }
            guard let secret, let keys else { return nil }
            return try Type2Password(try await DaemonFlowContext.secret(secret, in: keys))
        }
        guard let newPassword = try await password(rule.password, secret: rule.passwordSecret) else {
            throw DaemonFlowError.noKeyStore
        }
        let currentPassword = try await password(rule.currentPassword, secret: rule.currentPasswordSecret)
        let message = try rule.content.message()
        let flow = DaemonFlowSteps.identify.then("ntag-ndef-protect", idempotent: true) { outcome, session in
            var tag = try await NTAGClient.open(on: session)
            let protected: Bool
            do {
                let configuration = try await tag.readConfiguration()
                protected = Int(configuration.auth0) < tag.product.pageCount
            } catch StorageCardError.pageAccessFailed, StorageCardError.cardNAK {
                // Read-protected (PROT): the refused read halted the tag; power it up again.
                try await session.reconnect()
                tag = try await NTAGClient.open(on: session)
                protected = true
            }
            if protected {
                // Protected already: with the rule's current password when it names one, else
                // with its password (an earlier run of this rule).
                if let currentPassword {
                    try await tag.authenticate(password: currentPassword)
                } else {
                    try await tag.authenticate(password: newPassword, expectedPACK: rule.pack)
                }
            }
            try await tag.writeNDEFMessage(message)
            guard try await tag.readNDEFMessage() == message else { throw DaemonFlowError.readBackMismatch }
            let written = try await tag.protect(
                password: newPassword, pack: rule.pack, auth0: UInt8(rule.auth0), protectsReads: rule.protectReads,
                authenticationLimit: UInt8(rule.authenticationLimit))
            try await tag.finish()
            var outcome = outcome
            outcome.values["product"] = tag.product.description
            outcome.values["written"] = message.hexString
            outcome.values["auth0"] = "\(written.auth0)"
            outcome.values["protects"] = written.protectsReads ? "reads and writes" : "writes"
            return outcome
        }
        return FlowJob(flow: flow)
    }
}

extension FlowSpecification {
    /// Write NDEF on an NTAG21x and protect it with a password (``NTAGNDEFRule``).
    public static func ntagNDEFProtect(_ rule: NTAGNDEFRule) -> FlowSpecification {
        FlowSpecification(rule)
    }
}
