/// One card family's recognition, as a plug: each family module provides its detector
/// (`DESFireFamilyDetector` in DESFire, `TONFamilyDetector` in TONCard, `NDEFFamilyDetector` in
/// NDEF, `ISO15693FamilyDetector` in ISO15693), and a program lists the ones it links in a
/// ``CardFamilyDetection``. A detector looks at the ATR and sends only harmless probes
/// (SELECT, GetVersion, reads): nothing is written.
///
/// ```swift
/// struct PIVFamilyDetector: CardFamilyDetector {
///     let family = "piv"
///     func matches(_ card: CardFamilyProbe) async throws -> Bool {
///         try await card.answers { try await card.channel.transmit(selectPIV).throwIfNotSuccess(for: selectPIV) }
///     }
/// }
/// ```
public protocol CardFamilyDetector: Sendable {
    /// The family's name (`desfire`, `ton`, `ndef`, `iso15693`, …).
    var family: String { get }
    /// Whether the card is of this family.
    ///
    /// - Throws: only what ends the detection: a lost card or cancellation (see
    ///   ``CardFamilyProbe/answers(_:)``).
    func matches(_ card: CardFamilyProbe) async throws -> Bool
}

/// What a detector may look at: the card's ATR, what it says, and a channel for probes.
public struct CardFamilyProbe: Sendable {
    /// The card's ATR.
    public let atr: [UInt8]
    /// What the ATR says (contact, ISO-DEP or storage card; the PC/SC part 3 standard).
    public let identification: ATRIdentification
    /// Where probes go.
    public let channel: any CardChannel

    /// - Parameters:
    ///   - atr: the card's ATR.
    ///   - channel: where probes go.
    public init(atr: [UInt8], channel: any CardChannel) {
        self.atr = atr
        self.identification = ATRIdentification(atr: atr)
        self.channel = channel
    }

    /// Whether `probe` succeeds. A lost card and cancellation are thrown; any other error (a
    /// status word, an answer of the wrong shape) is "no".
    public func answers(_ probe: () async throws -> Void) async throws -> Bool {
        do {
            try await probe()
            return true
        } catch {
            if error.meansCardLost || error is CancellationError || Task.isCancelled { throw error }
            return false
        }
    }

    /// Whether the card is a storage card (no ISO-DEP: Type 2, ISO 15693, MIFARE Classic, FeliCa).
    public var isStorageCard: Bool { identification.kind == .contactlessStorage }
}

/// The detectors a program links, tried in order; the first that matches names the family.
///
/// ```swift
/// let detection = CardFamilyDetection([ISO15693FamilyDetector(), TONFamilyDetector(),
///                                      DESFireFamilyDetector(), NDEFFamilyDetector()])
/// let family = try await reader.withSession { session in
///     try await detection.detect(atr: await session.identity.atr, channel: session)
/// }
/// ```
public struct CardFamilyDetection: Sendable {
    /// The detectors, in the order they are tried.
    public let detectors: [any CardFamilyDetector]

    /// - Parameter detectors: the detectors, most specific first.
    public init(_ detectors: [any CardFamilyDetector]) {
        self.detectors = detectors
    }

    /// The family of the first detector that matches, nil when none does.
    ///
    /// - Throws: a lost card or cancellation.
    public func detect(atr: [UInt8], channel: any CardChannel) async throws -> String? {
        let card = CardFamilyProbe(atr: atr, channel: channel)
        for detector in detectors where try await detector.matches(card) {
            return detector.family
        }
        return nil
    }
}
