import CardDaemonControl
import CardFlow
import NDEF
import StorageCards

extension FlowCatalog {
    /// The `ntag-ndef-protect` flow: identify, then on the NTAG21x / Ultralight EV1 — PWD_AUTH
    /// where the tag is protected already (with the rule's current password when it names one,
    /// else with its password and PACK: a second run on the same tag), the NDEF
    /// message written and read back, PWD and PACK set, ACCESS and AUTH0 written last.
    ///
    /// - Throws: ``DaemonFlowError/missingSecret(_:)`` for a named secret the store lacks, and
    ///   ``/StorageCards/StorageCardError/invalidArgument(_:)`` for a secret that is no 4-byte
    ///   password — both before a tag is touched.
    static func ntagNDEFProtectJob(_ rule: NTAGNDEFRule, keys: (any KeyStore)?) async throws -> FlowJob {
        func password(_ bytes: [UInt8]?, secret: String?) async throws -> Type2Password? {
            if let bytes { return try Type2Password(bytes) }
            guard let secret, let keys else { return nil }
            return try Type2Password(try await Self.secret(secret, in: keys))
        }
        guard let newPassword = try await password(rule.password, secret: rule.passwordSecret) else {
            throw DaemonFlowError.noKeyStore
        }
        let currentPassword = try await password(rule.currentPassword, secret: rule.currentPasswordSecret)
        let record: NDEFRecord
        switch rule.content {
        case .uri(let uri): record = URIRecord(uri).record
        case .text(let text): record = try TextRecord(text).record
        }
        let message = try NDEFMessage([record]).encoded()
        let flow = Flow.start("identify") { session in
            let identity = await session.identity
            var values = ["atr": identity.atr.hexString]
            if let uid = identity.uid { values["uid"] = uid.hexString }
            return JobOutcome(values)
        }
        .then("ntag-ndef-protect", idempotent: true) { outcome, session in
            var tag = try await NTAGClient.open(on: session)
            let protected: Bool
            do {
                let configuration = try await tag.readConfiguration()
                protected = Int(configuration.auth0) < tag.product.pageCount
            } catch StorageCardError.pageAccessFailed, StorageCardError.cardNAK {
                // Read-protected (PROT): the refused read halted the tag; power it up again.
                try await session.reconnect()
                tag = try await NTAGClient.open(on: session)
                protected = true
            }
            if protected {
                // Protected already: with the rule's current password when it names one, else
                // with its password (an earlier run of this rule).
                if let currentPassword {
                    try await tag.authenticate(password: currentPassword)
                } else {
                    try await tag.authenticate(password: newPassword, expectedPACK: rule.pack)
                }
            }
            try await tag.writeNDEFMessage(message)
            guard try await tag.readNDEFMessage() == message else { throw DaemonFlowError.readBackMismatch }
            let written = try await tag.protect(
                password: newPassword, pack: rule.pack, auth0: UInt8(rule.auth0), protectsReads: rule.protectReads,
                authenticationLimit: UInt8(rule.authenticationLimit))
            try await tag.finish()
            var outcome = outcome
            outcome.values["product"] = tag.product.description
            outcome.values["written"] = message.hexString
            outcome.values["auth0"] = "\(written.auth0)"
            outcome.values["protects"] = written.protectsReads ? "reads and writes" : "writes"
            return outcome
        }
        return FlowJob(flow: flow)
    }
}
