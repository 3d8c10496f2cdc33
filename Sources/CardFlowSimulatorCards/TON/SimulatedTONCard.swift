/// A virtual TON Labs NFC security card: the TonWalletApplet and the card's CoinManager
/// (GlobalPlatform ISD), written from the applet's specification (`alinaT95/WalletApplet` as
/// summarised in the project's TON reference, §0, §2–§8, §11), not from client code.
///
/// ```swift
/// var card = SimulatedTONCard(seed: 1)                              // vector A factory data, no seed yet
/// card.powerOn()
/// card.process([0x00, 0xA4, 0x04, 0x00, 0x08] + SimulatedTONCard.coinManagerAID)   // FCI, 90 00
/// card.process([0x80, 0xCB, 0x80, 0x00, 0x0B, 0xDF, 0xFE, 0x08, 0x82, 0x03, 0x05, 0x04,
///               0x35, 0x35, 0x35, 0x35])                   // GENERATE_SEED with PIN 5555
/// card.process([0x00, 0xA4, 0x04, 0x00, 0x0C] + SimulatedTONCard.tonAppletAID)     // 90 00
/// card.process([0xB0, 0xC1, 0x00, 0x00, 0x01])             // 27 90 00: waits for activation
/// ```
///
/// **Factory state.** ``init(seed:factoryData:)`` gives a card as it leaves the factory: the
/// applet personalised (state `27`, B1 / ECS / serial number set from the factory data, see
/// ``TONFactoryData``) and no CoinManager seed, so that SELECT of the applet answers `6F 02`
/// until GENERATE_SEED. ``installed(seed:)`` gives an applet in state `07` that accepts the
/// factory commands (`91`, `94`, `96`, `90`).
///
/// **Selection.** SELECT (`00 A4 04 00`) of a prefix (5…16 bytes) of the instance AID
/// `31 31 32 32 33 33 34 34 35 35 36 36 00` selects the applet, with or without `Le`, and
/// answers `6F 02` (the applet is selected nevertheless) while the CoinManager has no seed;
/// SELECT of `A0 00 00 01 51 00 00 00` or with no AID selects the CoinManager and returns its
/// FCI. A SELECT that selects nothing is forwarded to the selected applet (TON: `90 00` no-op;
/// CoinManager or none: `6A 82`). Before any selection, other commands answer `69 85`.
///
/// **TON applet.** Class `B0` (else `6E 00`); instructions outside the current state's set
/// (``SimulatedTONAppletState/acceptedInstructions``) answer `6D 00`. Handlers that take data check
/// `Lc` and handlers that answer data check for an exact `Le` (`67 00`), except GET_KEY_CHUNK
/// and GET_RECOVERY_DATA_PART whose `Le` is the amount wanted; as in the applet, a data field
/// sent to a command that takes none is ignored. HMAC-protected commands carry `payload | sault | HMAC-SHA256_K(payload | sault)`
/// and are checked in the applet's order: length (`67 00`), sault (`8F 01`; the sault is
/// renewed after every comparison, GET_SAULT does not renew it), MAC (`8F 03`, the 20th
/// consecutive failure blocks the applet with `8F 04`). VERIFY_PASSWORD: 19 failures answer
/// `5F 00`, the 20th blocks forever (`5F 01`). VERIFY_PIN: wrong PIN `6F 07`, from the 10th
/// consecutive failure `6F 08`.
///
/// **PIN.** The applet verifies the PIN through the CoinManager, whose retry counter (10)
/// also decrements; at 0 the CoinManager refuses even the right PIN until RESET_WALLET. A
/// successful VERIFY_PIN enables signing until the card loses power (re-SELECT keeps it); a
/// wrong PIN, RESET_WALLET or power-off clears it.
///
/// **Ed25519 (model's own derivation).** GENERATE_SEED draws a 64-byte root seed. The private
/// key of index *i* (0 ≤ *i* ≤ 2³¹−1, sent as 1…10 ASCII digits) is the 32 bytes
/// `HMAC-SHA256(key: rootSeed, message: ASCII("m/44'/396'/0'/0'/<i>'"))` taken as
/// `Curve25519.Signing.PrivateKey(rawRepresentation:)`; the default path is index 0. Signatures
/// are standard Ed25519 over the message bytes only.
///
/// **Keychain, recovery data**: see ``TONKeychain`` and ``TONRecoveryData`` (spec §4, §5),
/// including the two-phase deletion and its stale length for the last key.
///
/// **Randomness** (saults, root seed) comes from a SplitMix64 stream seeded with `seed`, whose
/// position is persisted, so runs are reproducible.
///
/// **Persistence** (``CardStateStore``): everything but the selection and the PIN-verified flag.
public struct SimulatedTONCard: PersistentVirtualCard, Hashable {
    /// `"ton"`.
    public static let persistentKind = "ton"
    /// The AID the clients select: ASCII `"112233445566"`.
    public static let tonAppletAID: [UInt8] = Array("112233445566".utf8)
    /// The installed applet instance AID: ``tonAppletAID`` followed by `00`.
    public static let tonAppletInstanceAID: [UInt8] = tonAppletAID + [0x00]
    /// The CoinManager (ISD) AID `A0 00 00 01 51 00 00 00`.
    public static let coinManagerAID: [UInt8] = [0xA0, 0x00, 0x00, 0x01, 0x51, 0x00, 0x00, 0x00]
    /// The default PIN after RESET_WALLET, ASCII `"5555"`.
    public static let defaultPIN: [UInt8] = Array("5555".utf8)
    /// CoinManager PIN try limit (TLT) and the applet's PIN failure limit.
    public static let maxPINTries = 10
    /// Wrong activation passwords before the applet blocks forever.
    public static let maxPasswordTries = 20
    /// Consecutive HMAC failures before the applet blocks.
    public static let maxHMACFailures = 20

    /// `"ton"`.
    public var kind: String { Self.persistentKind }
    /// The 7-byte UID derived from the seed.
    public let uid: [UInt8]
    /// ISO-DEP type A with a JavaCard (JCOP-like) ATS, ``ContactlessTechnology/tonJavaCardTypeA``.
    public var technology: ContactlessTechnology { .tonJavaCardTypeA }

    // MARK: Persistent applet state
    /// The applet's life-cycle state.
    public internal(set) var appletState: SimulatedTONAppletState
    /// B1, the encrypted activation password (128 bytes), once set.
    var encryptedPassword: [UInt8]?
    /// ECS, the encrypted common secret (32 bytes), once set.
    var encryptedCommonSecret: [UInt8]?
    /// The serial number as 24 digit values, once set.
    var serialNumber: [UInt8]?
    /// Failed VERIFY_PASSWORD attempts (never reset).
    public internal(set) var passwordFailures: Int
    /// K, the APDU HMAC key, set by a successful VERIFY_PASSWORD.
    var hmacKey: [UInt8]?
    /// Consecutive HMAC verification failures.
    public internal(set) var hmacFailures: Int
    /// The current sault (32 bytes) that the next protected command must carry.
    public internal(set) var sault: [UInt8]
    /// Consecutive failed VERIFY_PIN (the applet's `numPinFails`).
    public internal(set) var pinFailures: Int
    /// The keychain module.
    public internal(set) var keychain: TONKeychain
    /// The recovery data module.
    public internal(set) var recoveryData: TONRecoveryData

    // MARK: Persistent CoinManager state
    /// The root seed, once generated (64 bytes).
    var rootSeed: [UInt8]?
    /// The CoinManager PIN, 4 ASCII digits.
    var pin: [UInt8]
    /// Remaining CoinManager PIN tries (RTL).
    public internal(set) var pinTriesRemaining: Int
    /// The 32-byte device label.
    var deviceLabel: [UInt8]
    /// The chip serial number returned by GET_CSN (16 bytes, derived from the seed).
    let csn: [UInt8]
    /// The position of the deterministic random stream.
    var entropy: UInt64

    // MARK: Volatile state
    enum Selection: Hashable { case none, tonApplet, coinManager }
    var selection: Selection = .none
    var pinVerified = false

    /// Whether the CoinManager holds a root seed (GET_ROOT_KEY_STATUS answers `5A`).
    public var hasSeed: Bool { rootSeed != nil }

    /// A card as it leaves the factory: applet in state `27` personalised from `factoryData`,
    /// no seed, PIN `5555`.
    ///
    /// Factory data that does not validate (24 digits; 128, 32, 16 bytes of hex) gives an
    /// applet in state `07` instead, with nothing set.
    public init(seed: UInt64, factoryData: TONFactoryData = .vectorA) {
        self.init(blankWithSeed: seed)
        guard let bytes = try? factoryData.validated(),
            let personalisation = TONActivationCrypto.personalisation(for: bytes)
        else { return }
        encryptedPassword = personalisation.encryptedPassword
        encryptedCommonSecret = personalisation.encryptedCommonSecret
        serialNumber = bytes.serialNumber
        appletState = .waitingAuthentication
    }

    /// A card whose applet is installed but not personalised (state `07`): it accepts
    /// SET_ENCRYPTED_PASSWORD (`91`), SET_ENCRYPTED_COMMON_SECRET (`94`), SET_SERIAL_NUMBER
    /// (`96`) and FINISH_PERS (`90`).
    public static func installed(seed: UInt64) -> SimulatedTONCard {
        SimulatedTONCard(blankWithSeed: seed)
    }

    private init(blankWithSeed seed: UInt64) {
        uid = ISO7816Card.uid(fromSeed: seed)
        entropy = seed ^ 0x544F_4E43_4152_4421 // "TONCARD!": a stream distinct from the UID's
        appletState = .installed
        passwordFailures = 0
        hmacFailures = 0
        sault = []
        pinFailures = 0
        keychain = TONKeychain()
        recoveryData = TONRecoveryData()
        pin = Self.defaultPIN
        pinTriesRemaining = Self.maxPINTries
        deviceLabel = [UInt8](repeating: 0, count: 32)
        var generator = SeededRandom(seed: seed ^ 0x4353_4E43_534E_4353)
        csn = (0..<16).map { _ in UInt8.random(in: 0...255, using: &generator) }
        sault = randomBytes(32)
    }

    public mutating func powerOn() {
        selection = .none
        pinVerified = false
    }

    public mutating func process(_ command: [UInt8]) -> [UInt8] {
        guard let apdu = ISO7816CommandAPDU(parsing: command), !apdu.isExtended else {
            return TONResponse.status(TONStatus.wrongLength)
        }
        if apdu.cla == 0x00, apdu.ins == 0xA4, let response = select(apdu) {
            return response
        }
        switch selection {
        case .none: return TONResponse.status(TONStatus.conditionsNotSatisfied)
        case .coinManager: return coinManager(apdu)
        case .tonApplet: return tonApplet(apdu)
        }
    }

    /// Next bytes of the deterministic random stream.
    mutating func randomBytes(_ count: Int) -> [UInt8] {
        var generator = SeededRandom(seed: entropy)
        var out = [UInt8]()
        out.reserveCapacity(count)
        while out.count < count {
            let word = generator.next()
            for shift in stride(from: 0, to: 64, by: 8) where out.count < count {
                out.append(UInt8(truncatingIfNeeded: word >> UInt64(shift)))
            }
        }
        entropy = generator.next()
        return out
    }
}

extension ContactlessTechnology {
    /// ISO-DEP type A as a JCOP-style JavaCard presents itself: ATS
    /// `0F 78 77 71 02` + ASCII `"JCOP41V221"` (FSCI 8 = 256-byte frames, 106–848 kbit/s,
    /// FWI 7, CID supported), so the ATR carries `JCOP41V221` as historical bytes.
    public static let tonJavaCardTypeA: ContactlessTechnology =
        .isoDepTypeA(ats: [0x0F, 0x78, 0x77, 0x71, 0x02] + Array("JCOP41V221".utf8))
}
