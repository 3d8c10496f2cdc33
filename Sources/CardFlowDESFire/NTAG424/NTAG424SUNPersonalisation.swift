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
/// Keys 2 (SDMMetaReadKey) and 1 (SDMFileReadKey), and keys 3 and 4 when given
/// (``otherKeys``), are changed from the factory value (16 × 00) unless the tag already reports
/// the new key's version: give the keys a version other than 0, so a second run (or a resumed
/// one) knows they are in place. Key 0 is changed last, when ``newMasterKey`` is given: every
/// step authenticates with it once the tag reports its version, so a tag lifted just after that
/// ChangeKey resumes with the new key and none is lost. The last step reads the tag as a phone
/// does and verifies the SUN message it mirrors with the new keys.
public struct NTAG424SUNPersonalisation: Sendable {
    /// What a personalised tag reports.
    public struct Result: Sendable, Hashable {
        /// The tag's real 7-byte UID (GetCardUID).
        public let uid: [UInt8]
        /// Whether the keys were changed now (false: they were in place already).
        public let changedKeys: Bool
        /// The URL the tag gave when read as a phone reads it, after personalisation.
        public let url: String
        /// That URL's SUN message, verified with the new keys.
        public let message: NTAG424SUNMessage
    }

    public let template: NTAG424SUNTemplate
    public let masterKey: DESFireKey
    public let metaReadKey: DESFireKey
    public let fileReadKey: DESFireKey
    /// Keys 3 and 4 (by number) to install, when wanted.
    public let otherKeys: [UInt8: DESFireKey]
    /// Key 0's new value, changed last; nil leaves key 0 as ``masterKey``.
    public let newMasterKey: DESFireKey?
    /// The key numbers of SDMMetaReadKey and SDMFileReadKey.
    public let metaReadKeyNumber: UInt8 = 2
    public let fileReadKeyNumber: UInt8 = 1

    /// - Parameters:
    ///   - template: the URL and where SUN data goes.
    ///   - masterKey: key 0 as the tag has it now (the factory 16 × 00 for a new tag).
    ///   - metaReadKey: key 2, SDMMetaReadKey (enciphers PICCData).
    ///   - fileReadKey: key 1, SDMFileReadKey (the SDMMAC).
    ///   - otherKeys: keys 3 and 4 to install, by number.
    ///   - newMasterKey: key 0's new value (its version must differ from `masterKey`'s).
    public init(
        template: NTAG424SUNTemplate, masterKey: DESFireKey, metaReadKey: DESFireKey, fileReadKey: DESFireKey,
        otherKeys: [UInt8: DESFireKey] = [:], newMasterKey: DESFireKey? = nil
    ) {
        self.template = template
        self.masterKey = masterKey
        self.metaReadKey = metaReadKey
        self.fileReadKey = fileReadKey
        self.otherKeys = otherKeys
        self.newMasterKey = newMasterKey
    }

    /// The UID and whether a key was changed, from step to step.
    private typealias KeysDone = (uid: [UInt8], changed: Bool)

    /// The keys 1–4 to install, by number.
    var applicationKeys: [(number: UInt8, key: DESFireKey)] {
        [(fileReadKeyNumber, fileReadKey), (metaReadKeyNumber, metaReadKey)]
            + otherKeys.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
    }

    /// Step names, for progress and logs.
    public static let stepNames = [
        "identify", "install keys", "write URL", "switch SUN on", "change key 0", "verify SUN",
    ]

    /// - Throws: ``NTAG424Error/invalidArgument(_:)`` for keys that are not AES, keys 1–4 of
    ///   version 0 (a re-run could not tell them from the factory keys), other keys than 3 and 4
    ///   in ``otherKeys``, or a new key 0 with the old one's version.
    public func validate() throws(NTAG424Error) {
        let all = [masterKey] + applicationKeys.map(\.key) + (newMasterKey.map { [$0] } ?? [])
        for key in all where key.type != .aes {
            throw .invalidArgument("NTAG 424 DNA keys are AES-128, not \(key.type)")
        }
        for number in otherKeys.keys where number != 3 && number != 4 {
            throw .invalidArgument("other keys are keys 3 and 4, not \(number)")
        }
        for (number, key) in applicationKeys where key.version == 0 {
            throw .invalidArgument(
                "give key \(number) a version other than 0, so a re-run can tell it is installed")
        }
        if let newMasterKey, newMasterKey.version == masterKey.version {
            throw .invalidArgument(
                "give the new key 0 another version than the old one (\(masterKey.version)), so a resumed run knows which is in place"
            )
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
        .then(Self.stepNames[1]) { uid, session -> KeysDone in
            let changed = try await plan.authenticated(session) { tag in
                var changed = false
                for (number, key) in plan.applicationKeys {
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
        .then(Self.stepNames[3]) { state, session -> KeysDone in
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
            return state
        }
        .then(Self.stepNames[4]) { state, session -> KeysDone in
            guard let newMasterKey = plan.newMasterKey else { return state }
            let tag = NTAG424Client(channel: session)
            try await tag.selectNDEFApplication()
            // In place already (a resumed run, or the tag left just after the change).
            guard try await tag.getKeyVersion(0) != newMasterKey.version else { return state }
            try await tag.authenticate(keyNumber: 0, key: plan.masterKey)
            // Changing the session's own key ends the session: nothing follows in it.
            try await tag.changeKey(0, to: newMasterKey)
            return (state.uid, true)
        }
        .then(Self.stepNames[5]) { state, session -> Result in
            let tag = NTAG424Client(channel: session)
            try await tag.selectNDEFApplication()
            try await tag.isoSelectFile(.ndef)
            let file = try await tag.isoReadBinary(offset: 0, length: 0)
            guard let url = NTAG424SUNTemplate.uri(inNDEFFile: file) else {
                throw NTAG424Error.personalisationCheckFailed("the NDEF file holds no URI record")
            }
            let message: NTAG424SUNMessage
            do {
                // The mirrors sit where the template put them, whatever the URL calls them.
                let piccAt = Int(plan.template.piccDataOffset)
                let macAt = Int(plan.template.macOffset)
                guard file.count >= max(piccAt + 32, macAt + 16) else {
                    throw NTAG424Error.personalisationCheckFailed("the NDEF file is shorter than the template")
                }
                let verifier = try NTAG424SUNVerifier(
                    metaReadKey: plan.metaReadKey.bytes, fileReadKey: plan.fileReadKey.bytes)
                message = try verifier.verify(
                    piccData: try [UInt8](hex: String(decoding: file[piccAt..<(piccAt + 32)], as: UTF8.self)),
                    mac: try [UInt8](hex: String(decoding: file[macAt..<(macAt + 16)], as: UTF8.self)))
            } catch {
                throw NTAG424Error.personalisationCheckFailed("\(url): \(error)")
            }
            guard message.uid == state.uid else {
                throw NTAG424Error.personalisationCheckFailed("the SUN message names another UID than GetCardUID")
            }
            return Result(uid: state.uid, changedKeys: state.changed, url: url, message: message)
        }
    }

    /// Selects the NDEF application, authenticates with key 0 (the new one once the tag reports
    /// its version: a resumed run) and runs `body`.
    private func authenticated<T: Sendable>(_ session: CardSession, _ body: (NTAG424Client) async throws -> T)
        async throws -> T
    {
        let tag = NTAG424Client(channel: session)
        try await tag.selectNDEFApplication()
        var key = masterKey
        if let newMasterKey, try await tag.getKeyVersion(0) == newMasterKey.version { key = newMasterKey }
        try await tag.authenticate(keyNumber: 0, key: key)
        return try await body(tag)
    }
}
