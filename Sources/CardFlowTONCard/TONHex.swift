import CardFlow

extension Collection where Element == UInt8 {
    /// Lower-case hex, as the Swift seed prints card data (`%02hhx`).
    public var lowercaseHex: String { hexString.lowercased() }
}
