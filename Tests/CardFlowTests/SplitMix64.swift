import CardFlowSimulator

typealias SplitMix64 = SeededRandom

extension Array where Element == UInt8 {
    static func random(count: Int, using generator: inout SplitMix64) -> [UInt8] {
        (0..<count).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
    }
}
