import CardFlow

@testable import CardFlowNDEF

/// Hex for test vectors: spaces allowed, two digits a byte (CardFlow's codec).
func bytes(_ hex: String) -> [UInt8] {
    guard let bytes = try? [UInt8](hex: hex) else { preconditionFailure("not a hex test vector: \(hex)") }
    return bytes
}

func hex(_ bytes: [UInt8]) -> String { bytes.hexString }

/// SplitMix64: a small seeded generator so random tests repeat exactly.
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Decoding `bytes` in `mode` throws exactly `problem` at `offset`.
func decodingError(_ bytes: [UInt8], _ mode: NDEFDecodingMode = .strict) -> NDEFDecodingError? {
    do {
        _ = try NDEFMessage(decoding: bytes, mode: mode)
        return nil
    } catch {
        return error
    }
}
