import CardFlowISO15693
#if canImport(FuzzSupport)
import FuzzSupport
#endif

/// ISO 15693 GET SYSTEM INFORMATION answers, as tags send them.
enum ISO15693Fuzzing {
    static func systemInformation(_ bytes: [UInt8]) {
        guard let info = try? ISO15693SystemInformation(response: bytes) else { return }
        fuzzCheck(info.uid.count == 8, "UID of \(info.uid.count) bytes")
        fuzzCheck((1...256).contains(info.blockCount), "\(info.blockCount) blocks")
        fuzzCheck((1...32).contains(info.blockSize), "\(info.blockSize)-byte blocks")
        fuzzCheck(Array(info.uid.reversed()) == Array(bytes[1..<9]), "UID is not the answer's bytes 1...8 reversed")
    }
}
