import CardFlow
import CardFlowStorageCards

/// What the `ntag` commands print with `--json`, one type per answer, keys in declaration order
/// (``KeyOrderedJSONEncoder``; `info` lists its keys sorted, as it always has).
enum NTAGOutput {
    /// `ntag info`: the product, its memory and its configuration pages. What the tag or the
    /// reader would not give (read-protected pages, GET_VERSION on a reader without raw frames)
    /// is absent, and `unavailable` says why.
    struct Info: Encodable {
        let auth0: Int?
        let authenticationLimit: Int?
        let capabilityContainer: String?
        let configurationLocked: Bool?
        /// -1 for a tag without configuration pages (MIFARE Ultralight).
        let configurationPage: Int
        let counterEnabled: Bool?
        let name: String
        let pages: Int
        let product: String
        let protectsReads: Bool?
        let uid: String
        /// What could not be read, each with the reason; absent when everything was read.
        let unavailable: [String]?
        let version: String?

        init(_ gathered: NTAGInfoGathering) {
            let product = gathered.product
            let configuration = gathered.configuration
            auth0 = configuration.map { Int($0.auth0) }
            authenticationLimit = configuration.map { Int($0.authenticationLimit) }
            capabilityContainer = gathered.capabilityContainer?.hexString
            configurationLocked = configuration?.configurationLocked
            configurationPage = product.configurationPage ?? -1
            counterEnabled = configuration?.counterEnabled
            name = product.description
            pages = product.pageCount
            self.product = product.rawValue
            protectsReads = configuration?.protectsReads
            uid = gathered.uid.hexString
            unavailable = gathered.unavailable.isEmpty ? nil : gathered.unavailable
            version = gathered.version?.hexString
        }
    }

    /// `ntag read`: the pages from `page` on, in hex.
    struct Pages: Encodable {
        let data: String
        let page: Int
    }

    /// `ntag write`.
    struct PagesWritten: Encodable {
        let pages: Int
        let written = true
    }

    /// `ntag pwd-set`: the protection now in force.
    struct Protection: Encodable {
        let auth0: UInt8
        let authenticationLimit: UInt8
        let protectsReads: Bool
    }

    /// `ntag pwd-auth`.
    struct PasswordAcknowledged: Encodable {
        let pack: String
    }

    /// `ntag counter`.
    struct Counter: Encodable {
        let counter: UInt32
    }

    /// `ntag signature` (not verified: secp128r1 is not in swift-crypto).
    struct Signature: Encodable {
        let signature: String
        let verified = false
    }
}
