/// A card for differential tests of APDU transport: a fixed command set, written from ISO/IEC
/// 7816-4 (§5.1 command-response pairs, §5.6 status words, §7.6.1 GET RESPONSE), whose every
/// answer is a pure function of the commands sent since power-on. Two host stacks that carry
/// the same APDUs to it must therefore see byte-identical answers; any difference is the
/// stacks' doing (framing, chaining, length handling), not the card's.
///
/// The card processes APDUs, not TPDUs: it answers `61 XX` and `6C XX` where the command asks
/// for them, exactly as a card does at the APDU level; mapping them onto T=0 procedure bytes
/// belongs to the reader or protocol layer that carries them. It accepts short and extended
/// length fields alike (what a reader or stack cannot carry is theirs to refuse).
///
/// Command set (`CLA 80`, proprietary class, for the test instructions; `CLA 00` for the two
/// interindustry commands). *Pattern(n, s)* is the `n` bytes `b[i] = (i + s) mod 251`: its
/// period of 251 makes a lost or repeated 256-byte block visible.
///
/// | Command | Case | Answer |
/// |---|---|---|
/// | `80 10 00 00` NO-OP | 1 | `90 00` |
/// | `80 20 P1 00 Le` PATTERN | 2 | Pattern(min(Ne, 4096), P1) `90 00`; an explicit Ne above 4096 gets the 4096 bytes with `62 82` |
/// | `80 30 00 00 Lc data` SINK | 3 | `90 00`; remembers the receipt of `data` |
/// | `80 32 00 00 Le` RECEIPT | 2 | the first Ne of: length of the last SINK data (2 bytes, big-endian), its Fletcher-16 checksum (2 bytes) `90 00`; `69 85` before any SINK |
/// | `80 40 00 00 Lc data Le` REVERSE | 4 | `data` reversed, cut to Ne bytes, `90 00` |
/// | `80 50 P1 P2` DEFERRED | 1 | `61 XX`: Pattern(N, 0) with N = `P1 P2` (1…4096) waits for GET RESPONSE |
/// | `80 50 00 00 Lc data` DEFERRED | 3 | `61 XX`: `data` reversed waits for GET RESPONSE |
/// | `80 60 P1 00 Le` EXACT | 2 | exactly X = P1 bytes (`00`: 256) are available: Ne = X gets Pattern(X, 0x60) `90 00`, any other Ne `6C XX` (XX = X mod 256) |
/// | `00 C0 00 00 Le` GET RESPONSE | 2 | the next min(Ne, left) waiting bytes, then `61 XX` while bytes are left or `90 00`; an explicit Ne above what is left: `6C XX`; nothing waiting: `69 85` |
/// | `00 A4 04 P2 Lc AID [Le]` SELECT | 3/4 | ``applicationID``: `90 00`; any other name, or any other P1: `6A 82` |
///
/// `61 XX` and `6C XX` give the count below 256, and `00` for 256 or more, as §5.6 prescribes
/// (300 waiting bytes: `61 00`).
/// Waiting GET RESPONSE data is dropped by any other command. Errors: `67 00` malformed length
/// fields or wrong case, `6E 00` other classes, `6D 00` other instructions, `6B 00` wrong P1-P2,
/// `6A 86` wrong P1-P2 of SELECT.
public struct APDUTestCard: VirtualCard, Hashable {
    /// The application identifier SELECT answers `90 00` to: proprietary RID `F0 43 46` ("CF")
    /// followed by `"APDU"`.
    public static let applicationID: [UInt8] = [0xF0, 0x43, 0x46, 0x41, 0x50, 0x44, 0x55]

    /// The ATS of the default technology: `TL=0B T0=78 TA=77 TB=81 TC=02` and the historical
    /// bytes `"CFAPDU"`, so the reader reports `3B 86 80 01 43 46 41 50 44 55 TCK`.
    public static let defaultATS: [UInt8] = [0x0B, 0x78, 0x77, 0x81, 0x02, 0x43, 0x46, 0x41, 0x50, 0x44, 0x55]

    /// The most bytes PATTERN and DEFERRED produce.
    public static let maxPatternLength = 4096

    /// `"apdu-test"`.
    public var kind: String { "apdu-test" }

    /// What the reader sees (the contact ATR, for contact-card variants).
    public let technology: ContactlessTechnology

    /// The anti-collision UID.
    public let uid: [UInt8]

    // Volatile state: power-on clears it.
    private var waiting: [UInt8]?
    private var receipt: [UInt8]?

    /// A contact interface (ATR, protocols, PPS behaviour) when the card is a contact card.
    public let contactInterface: ContactInterface?

    /// A card with a UID derived from `seed` (``ISO7816Card/uid(fromSeed:)``).
    ///
    /// - Parameters:
    ///   - seed: where the UID comes from.
    ///   - technology: ISO-DEP type A with ``defaultATS`` unless given.
    ///   - contactInterface: makes it a contact card (T=0, T=1 or both) with this ATR and PPS
    ///     behaviour instead, so the same command set runs over T=0 in differential tests.
    public init(
        seed: UInt64 = 0, technology: ContactlessTechnology = .isoDepTypeA(ats: APDUTestCard.defaultATS),
        contactInterface: ContactInterface? = nil
    ) {
        self.uid = ISO7816Card.uid(fromSeed: seed)
        self.contactInterface = contactInterface
        self.technology = contactInterface.map { .contact(atr: $0.answerToReset) } ?? technology
    }

    /// Pattern(count, start): `b[i] = (i + start) mod 251`.
    public static func pattern(count: Int, start: UInt8) -> [UInt8] {
        (0..<max(count, 0)).map { UInt8((($0 % 251) + Int(start)) % 251) }
    }

    /// The RECEIPT of `data`: its length (2 bytes, big-endian) and Fletcher-16 checksum
    /// (sum of the sums, then the sum, each mod 255).
    public static func receipt(of data: [UInt8]) -> [UInt8] {
        var sum = 0
        var sumOfSums = 0
        for byte in data {
            sum = (sum + Int(byte)) % 255
            sumOfSums = (sumOfSums + sum) % 255
        }
        return [
            UInt8(truncatingIfNeeded: data.count >> 8), UInt8(truncatingIfNeeded: data.count),
            UInt8(sumOfSums), UInt8(sum),
        ]
    }

    /// Clears waiting GET RESPONSE data and the SINK receipt.
    public mutating func powerOn() {
        waiting = nil
        receipt = nil
    }

    /// Answers one command APDU (see the type description).
    /// Over T=0 at character level: SINK, REVERSE, DEFERRED (with data), SELECT and ENVELOPE take
    /// P3 bytes from the terminal; every other command is answered at once.
    public func t0TakesData(header: [UInt8]) -> Bool {
        guard header.count >= 2 else { return false }
        switch (header[0], header[1]) {
        case (0x80, 0x30), (0x80, 0x40), (0x80, 0x50), (_, 0xA4), (_, 0xC2): return true
        default: return false
        }
    }

    public mutating func process(_ command: [UInt8]) -> [UInt8] {
        // GET RESPONSE must come straight after the answer that announced the data.
        let pending = waiting
        waiting = nil
        guard let apdu = ISO7816CommandAPDU(parsing: command) else { return Self.status(0x6700) }
        let hasData = !apdu.data.isEmpty
        let hasLe = apdu.ne != nil
        switch (apdu.cla, apdu.ins) {
        case (0x80, 0x10):
            guard !hasData, !hasLe else { return Self.status(0x6700) }
            guard apdu.p1 == 0, apdu.p2 == 0 else { return Self.status(0x6B00) }
            return Self.status(0x9000)
        case (0x80, 0x20):
            guard !hasData, let ne = apdu.ne else { return Self.status(0x6700) }
            guard apdu.p2 == 0 else { return Self.status(0x6B00) }
            let count = min(ne, Self.maxPatternLength)
            let short = ne > Self.maxPatternLength && !apdu.leIsMaximum
            return Self.pattern(count: count, start: apdu.p1) + Self.status(short ? 0x6282 : 0x9000)
        case (0x80, 0x30):
            guard hasData, !hasLe else { return Self.status(0x6700) }
            guard apdu.p1 == 0, apdu.p2 == 0 else { return Self.status(0x6B00) }
            receipt = Self.receipt(of: apdu.data)
            return Self.status(0x9000)
        case (0x80, 0x32):
            guard !hasData, let ne = apdu.ne else { return Self.status(0x6700) }
            guard apdu.p1 == 0, apdu.p2 == 0 else { return Self.status(0x6B00) }
            guard let receipt else { return Self.status(0x6985) }
            return Array(receipt.prefix(ne)) + Self.status(0x9000)
        case (0x80, 0x40):
            guard hasData, let ne = apdu.ne else { return Self.status(0x6700) }
            guard apdu.p1 == 0, apdu.p2 == 0 else { return Self.status(0x6B00) }
            return Array(apdu.data.reversed().prefix(ne)) + Self.status(0x9000)
        case (0x80, 0x50):
            return deferred(apdu)
        case (0x80, 0x60):
            guard !hasData, let ne = apdu.ne else { return Self.status(0x6700) }
            guard apdu.p2 == 0 else { return Self.status(0x6B00) }
            let available = apdu.p1 == 0 ? 256 : Int(apdu.p1)
            guard ne == available else { return Self.status(0x6C00 | UInt16(available & 0xFF)) }
            return Self.pattern(count: available, start: 0x60) + Self.status(0x9000)
        case (0x00, 0xC0):
            guard !hasData, let ne = apdu.ne else { return Self.status(0x6700) }
            guard apdu.p1 == 0, apdu.p2 == 0 else { return Self.status(0x6B00) }
            guard let pending, !pending.isEmpty else { return Self.status(0x6985) }
            if ne > pending.count && !apdu.leIsMaximum {
                waiting = pending // the host asks again with the right Le
                return Self.status(0x6C00 | UInt16(pending.count & 0xFF))
            }
            return announce(pending, deliveringAtMost: ne)
        case (0x00, 0xA4):
            guard hasData else { return Self.status(0x6700) }
            guard apdu.p2 & 0xF0 == 0 else { return Self.status(0x6A86) }
            return Self.status(apdu.p1 == 0x04 && apdu.data == Self.applicationID ? 0x9000 : 0x6A82)
        case (0x80, _), (0x00, _):
            return Self.status(0x6D00)
        default:
            return Self.status(0x6E00)
        }
    }

    /// DEFERRED: the answer's data waits for GET RESPONSE behind `61 XX`.
    private mutating func deferred(_ apdu: ISO7816CommandAPDU) -> [UInt8] {
        guard apdu.ne == nil else { return Self.status(0x6700) }
        let data: [UInt8]
        if apdu.data.isEmpty {
            let count = Int(apdu.p1) << 8 | Int(apdu.p2)
            guard (1...Self.maxPatternLength).contains(count) else { return Self.status(0x6B00) }
            data = Self.pattern(count: count, start: 0)
        } else {
            guard apdu.p1 == 0, apdu.p2 == 0 else { return Self.status(0x6B00) }
            data = apdu.data.reversed()
        }
        return announce(data, deliveringAtMost: 0)
    }

    /// Delivers up to `count` bytes of `data` and keeps the rest waiting behind `61 XX`.
    private mutating func announce(_ data: [UInt8], deliveringAtMost count: Int) -> [UInt8] {
        let delivered = Array(data.prefix(count))
        let left = Array(data.dropFirst(delivered.count))
        guard !left.isEmpty else { return delivered + Self.status(0x9000) }
        waiting = left
        return delivered + Self.status(0x6100 | UInt16(min(left.count, 256) & 0xFF))
    }

    private static func status(_ value: UInt16) -> [UInt8] {
        [UInt8(truncatingIfNeeded: value >> 8), UInt8(truncatingIfNeeded: value)]
    }
}
