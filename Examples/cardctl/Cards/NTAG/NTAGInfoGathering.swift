import CardFlow
import CardFlowStorageCards

/// What `ntag info` could read from a tag, and what it could not with the reason: the UID
/// (page 0) is required; GET_VERSION, the capability container and the configuration pages are
/// read when the tag and the reader allow it. A read-protected tag NAKs (and halts) at its
/// first protected page, so the configuration pages, the likeliest to be protected, come last
/// and nothing is read after a refusal.
struct NTAGInfoGathering: Sendable {
    let product: Type2Product
    var version: [UInt8]?
    var uid: [UInt8] = []
    var capabilityContainer: [UInt8]?
    var configuration: Type2Configuration?
    var unavailable: [String] = []

    /// Reads what it can from `tag`.
    static func gather(_ tag: NTAGClient) async throws -> NTAGInfoGathering {
        var gathered = NTAGInfoGathering(product: tag.product)
        if tag.product == .ultralight {
            // Opened as a plain Ultralight: it NAKed GET_VERSION (or the reader has no raw frames).
            gathered.unavailable.append(
                "GET_VERSION: " + (tag.rawFrameRefusal.map { "\($0)" } ?? "a MIFARE Ultralight has none"))
        } else {
            do {
                gathered.version = try await tag.getVersion()
            } catch let error as StorageCardError where error.category == .usage {
                gathered.unavailable.append("GET_VERSION: \(error)")
            }
        }
        let header = try await tag.read(page: 0)
        gathered.uid = Array(header[0..<3] + header[4..<8])
        do {
            gathered.capabilityContainer = try await tag.capabilityContainer()
        } catch let error as StorageCardError where Self.isReadRefusal(error) {
            gathered.unavailable.append("capability container (page 3): \(Self.protectedText(error))")
            gathered.unavailable.append("configuration pages: not read after the tag refused a read")
            return gathered
        }
        guard tag.product.configurationPage != nil else { return gathered }
        do {
            gathered.configuration = try await tag.readConfiguration()
        } catch let error as StorageCardError where Self.isReadRefusal(error) {
            gathered.unavailable.append("configuration pages: \(Self.protectedText(error))")
        }
        return gathered
    }

    /// A read the tag refused (a NAK, or the reader's failed READ BINARY for it).
    static func isReadRefusal(_ error: StorageCardError) -> Bool {
        switch error {
        case .cardNAK, .pageAccessFailed: true
        default: false
        }
    }

    static func protectedText(_ error: StorageCardError) -> String {
        "refused, likely read-protected by a password (give --password): \(error)"
    }
}
