/// One of the 16 symmetric key slots of a ``KeyStore``, numbered 0...15 like the key slots of a
/// reader's secure element.
///
/// A `KeySlot` value always holds a valid number, so stores never see slots out of range:
///
/// ```swift
/// let slot = try KeySlot(3)          // fine
/// let bad = try KeySlot(16)          // throws KeyStoreError.slotOutOfRange(16)
/// ```
public struct KeySlot: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// The valid slot numbers.
    public static let validNumbers: ClosedRange<Int> = 0...15

    /// Every slot, in order.
    public static let all: [KeySlot] = validNumbers.map { KeySlot(validatedNumber: $0) }

    /// The slot number, in ``validNumbers``.
    public let number: Int

    /// Names slot `number`.
    ///
    /// - Throws: ``KeyStoreError/slotOutOfRange(_:)`` unless `number` is in 0...15.
    public init(_ number: Int) throws(KeyStoreError) {
        guard Self.validNumbers.contains(number) else { throw .slotOutOfRange(number) }
        self.init(validatedNumber: number)
    }

    private init(validatedNumber number: Int) {
        self.number = number
    }

    public static func < (lhs: KeySlot, rhs: KeySlot) -> Bool {
        lhs.number < rhs.number
    }

    /// For example `"slot 3"`.
    public var description: String { "slot \(number)" }
}
