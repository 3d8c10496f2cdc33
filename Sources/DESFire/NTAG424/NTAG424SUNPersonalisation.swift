import CardFlow

/// Personalises an NTAG 424 DNA for SUN as a ``/CardFlow/Flow``: installs the SDM keys, writes
/// the URL template, switches SDM mirroring on. Every step authenticates afresh, so a tag lifted
/// and put back resumes where it was; every step may run twice.
///
/// ```swift
/// let plan = NTAG424SUNPersonalisation(template: try NTAG424SUNTemplate(url: "https://example.org/tap"),
///                                      masterKey: key0, metaReadKey: key2, fileReadKey: key1)
/// let result = try await reader.run(plan.flow()).value   // the tag's UID
/// ```
///
/// Keys 2 (SDMMetaReadKey) and 1 (SDMFileReadKey) are changed from the factory value (16 × 00)
/// unless the tag already reports the new key's version: give the keys a version other than 0,
/// so a second run (or a resumed one) knows they are in place. Key 0 is not changed.
public struct NTAG424SUNPersonalisation: Sendable {
    /// What a personalised tag reports.
    public struct Result: Sendable, Hashable {
        /// The tag's real 7-byte UID (GetCardUID).
        public let uid: [UInt8]
        /// Whether the keys were changed now (false: they were in place already).
        public let changedKeys: Bool
    }

    public let template: NTAG424SUNTemplate
    public let masterKey: DESFireKey
    public let metaReadKey: DESFireKey
    public let fileReadKey: DESFireKey
    /// The key numbers of SDMMetaReadKey and SDMFileReadKey.
    public let metaReadKeyNumber: UInt8 = 2
    public let fileReadKeyNumber: UInt8 = 1

    public init(template: NTAG424SUNTemplate, masterKey: DESFireKey, metaReadKey: DESFireKey, fileReadKey: DESFireKey) {
        self.template = template
        self.masterKey = masterKey
        self.metaReadKey = metaReadKey
        self.fileReadKey = fileReadKey
    }

    /// Step names, for progress and logs.
    public static let stepNames = ["identify", "install SDM keys", "write URL", "switch SUN on"]

    /// - Throws: ``NTAG424Error/invalidArgument(_:)`` for keys that are not AES or SDM keys of
    ///   version 0 (a re-run could not tell them from the factory keys).
    public func validate() throws(NTAG424Error) {
        for key in [masterKey, metaReadKey, fileReadKey] where key.type != .aes {
            throw .invalidArgument("NTAG 424 DNA keys are AES-128, not \(key.type)")
        }
        guard metaReadKey.version != 0, fileReadKey.version != 0 else {
            throw .invalidArgument("give the SDM keys a version other than 0, so a re-run can tell they are installed")
        }
    }

    public func flow() -> Flow<Result> {
        let plan = self
        return Flow.start(Self.stepNames[0]) { session -> [UInt8] in
            try plan.validate()
            // ChangeKey carries key material (enciphered, but still): never in traces.
            await session.addRedaction(.instruction(EV2Instruction.changeKey.rawValue, cla: 0x90))
            return try await plan.authenticated(session) { tag in try await tag.getCardUID() }
        }
        .then(Self.stepNames[1]) { uid, session -> (uid: [UInt8], changed: Bool) in
            let changed = try await plan.authenticated(session) { tag in
                var changed = false
                for (number, key) in [
                    (plan.metaReadKeyNumber, plan.metaReadKey), (plan.fileReadKeyNumber, plan.fileReadKey),
                ] {
                    guard try await tag.getKeyVersion(number) != key.version else { continue }
                    try await tag.changeKey(
                        number, to: key, oldKey: try DESFireKey(type: .aes, bytes: [UInt8](repeating: 0, count: 16)))
                    changed = true
                }
                return changed
            }
            return (uid, changed)
        }
        .then(Self.stepNames[2]) { state, session in
            try await plan.authenticated(session) { tag in
                try await tag.writeData(.ndef, data: plan.template.ndefFile, mode: .plain)
            }
            return state
        }
        .then(Self.stepNames[3]) { state, session -> Result in
            let settings = plan.template.fileSettings(
                metaReadKey: plan.metaReadKeyNumber, fileReadKey: plan.fileReadKeyNumber)
            try await plan.authenticated(session) { tag in
                try await tag.changeFileSettings(.ndef, to: settings)
                let now = try await tag.getFileSettings(.ndef)
                guard now.sdm == settings.sdm, now.commMode == settings.commMode,
                    now.accessRights == settings.accessRights
                else {
                    throw NTAG424Error.malformedFileSettings("the tag reports \(now) after ChangeFileSettings")
                }
            }
            return Result(uid: state.uid, changedKeys: state.changed)
        }
    }

    /// Selects the NDEF application, authenticates with key 0 and runs `body`.
    private func authenticated<T: Sendable>(_ session: CardSession, _ body: (NTAG424Client) async throws -> T)
        async throws -> T
    {
        let tag = NTAG424Client(channel: session)
        try await tag.selectNDEFApplication()
        try await tag.authenticate(keyNumber: 0, key: masterKey)
        return try await body(tag)
    }
}
