import CardFlow
import CardFlowRelay
#if canImport(FuzzSupport)
import FuzzSupport
#endif

/// Messages a relay service sends over its WebSocket: only what the limits allow gets through.
enum RelayFuzzing {
    static func serviceMessage(_ bytes: [UInt8]) {
        let limits = RelayLimits(maxAPDUSize: 64, maxAPDUs: 4)
        let text = String(decoding: bytes, as: UTF8.self)
        guard let message = try? RelayServiceMessage(parsing: text, limits: limits) else { return }
        switch message {
        case .apdu(_, let command):
            fuzzCheck(
                command.encoded().count <= limits.maxAPDUSize, "APDU of \(command.encoded().count) bytes let through")
        case .progress(let fraction):
            fuzzCheck(fraction.isFinite && (0...1).contains(fraction), "progress \(fraction) let through")
        case .done, .failed:
            break
        }
    }
}
