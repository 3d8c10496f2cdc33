/// What is known about the card of a session: its ATR, its anti-collision UID (when the reader
/// answers PC/SC `FF CA`), and the key by which a flow recognises it when it comes back.
public struct CardIdentity: Sendable, Hashable, CustomStringConvertible {
    public var atr: [UInt8]
    public var uid: [UInt8]?
    /// The bytes compared to decide "same card" (see ``CardIdentityResolver``).
    public var key: [UInt8]

    public init(atr: [UInt8], uid: [UInt8]?, key: [UInt8]) {
        self.atr = atr
        self.uid = uid
        self.key = key
    }

    /// Whether bytes from `FF CA` can be an anti-collision identifier: 4, 7 or 10 bytes (ISO/IEC
    /// 14443-3 single, double, triple size), or 8 (ISO/IEC 15693 UID, FeliCa IDm).
    ///
    /// Anything else (empty, odd lengths, a 250-byte answer) is not one; such a card is
    /// recognised by its ATR instead, so a card that answers `FF CA` with noise is not mistaken
    /// for another card every time it comes back.
    public static func isAnticollisionUID(_ bytes: [UInt8]) -> Bool {
        [4, 7, 8, 10].contains(bytes.count)
    }

    public var description: String {
        if let uid { return "card UID \(uid.hexString)" }
        return "card ATR \(atr.hexString)"
    }
}

/// Decides how a card is recognised when it returns to the reader mid-flow.
///
/// The default is the anti-collision UID (falling back to the ATR when the reader cannot tell
/// it). Cards with random UIDs need an application-level serial: give a closure that reads it
/// (for example DESFire GetCardUID after authentication, or a TON card's serial number).
public struct CardIdentityResolver: Sendable {
    let resolve: @Sendable (CardSession) async throws -> [UInt8]

    public init(_ resolve: @escaping @Sendable (CardSession) async throws -> [UInt8]) {
        self.resolve = resolve
    }

    /// UID from PC/SC part 3 `FF CA 00 00 00`, else the ATR.
    public static let uid = CardIdentityResolver { session in
        let identity = await session.identity
        return identity.uid ?? identity.atr
    }
}
