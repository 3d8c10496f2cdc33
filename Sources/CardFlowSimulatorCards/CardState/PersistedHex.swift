import CardFlow

extension Array where Element == UInt8 {
    /// Bytes of a hex field in a persisted card state: CardFlow's hex codec, except that an empty
    /// field is no bytes (an empty buffer or MAC list is saved as `""`). Nil when not hex.
    init?(persistedHex text: String) {
        if text.isEmpty {
            self = []
        } else if let bytes = try? [UInt8](hex: text) {
            self = bytes
        } else {
            return nil
        }
    }
}
