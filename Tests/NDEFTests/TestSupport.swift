@testable import NDEF

/// Hex for test vectors: spaces allowed, two digits a byte.
func bytes(_ hex: String) -> [UInt8] {
    let digits = hex.filter { !$0.isWhitespace }.map { $0 }
    precondition(digits.count % 2 == 0, "odd hex digit count in test vector")
    return stride(from: 0, to: digits.count, by: 2).map { UInt8(String(digits[$0..<($0 + 2)]), radix: 16)! }
}

func hex(_ bytes: [UInt8]) -> String { Hex.string(bytes) }

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
