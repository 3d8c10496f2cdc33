import CardFlowSimulator
#if canImport(FuzzSupport)
import FuzzSupport
#endif

/// Simulated reader profiles (`--reader-profile`, lsusb-style dumps): parsing terminates and
/// never traps; what parses is a usable profile.
enum ReaderProfileFuzzing {
    static func profile(_ bytes: [UInt8]) {
        let text = String(decoding: bytes, as: UTF8.self)
        _ = try? ReaderProfile.profiles(parsing: text)
        guard let profile = try? ReaderProfile(parsing: text) else { return }
        fuzzCheck(!profile.interfaces.isEmpty, "a profile without interfaces")
    }
}
