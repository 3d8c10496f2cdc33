@testable import CardFlow
#if canImport(FuzzSupport)
import FuzzSupport
#endif

/// The key-store file: contents that decode are written back to a file that decodes the same.
enum KeyStoreFuzzing {
    static func file(_ bytes: [UInt8]) {
        guard let contents = try? KeyStoreFileFormat.decode(bytes, path: "fuzz") else { return }
        let again = try? KeyStoreFileFormat.decode(KeyStoreFileFormat.encode(contents), path: "fuzz")
        fuzzCheck(again == contents, "key-store contents do not survive encode/decode")
    }
}
