import CardFlow

/// Recognises an ISO/IEC 15693 vicinity tag (family `iso15693`) from its PC/SC part 3 ATR: a
/// storage card whose standard byte names ISO 15693 parts 1 to 4. No probe is sent.
public struct ISO15693FamilyDetector: CardFamilyDetector {
    public let family = "iso15693"

    /// ISO 15693 parts 1 to 4 in a PC/SC part 3 storage-card ATR.
    public static let standards: ClosedRange<UInt8> = 0x09...0x0C

    public init() {}

    public func matches(_ card: CardFamilyProbe) async throws -> Bool {
        guard card.isStorageCard, let standard = card.identification.standard?.rawValue else { return false }
        return Self.standards.contains(standard)
    }
}
