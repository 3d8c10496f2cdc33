import CardFlow

/// Hex text to bytes for test vectors ("FF 07 80" or "FF0780"); a malformed literal traps,
/// which in a test is a bug in the test.
func bytes(_ text: String) -> [UInt8] {
    guard let value = try? [UInt8](hex: text) else { fatalError("bad hex literal in a test: \(text)") }
    return value
}
