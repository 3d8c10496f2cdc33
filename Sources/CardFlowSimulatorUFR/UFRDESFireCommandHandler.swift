import CardFlowDESFire
import CardFlowSimulatorCards

/// The simulated reader's "firmware" for the uFR DESFire 8x commands (ufr.md §4, desfire.md §8,
/// the decisions file): it reads the command (``UFRDESFireRequest``), runs the native DESFire
/// sequence with CardFlow's ``/CardFlowDESFire/DESFireClient`` over a ``VirtualCardChannel`` onto
/// the card, and frames the reply: RSP with RSP_EXT `status LE16, exec_time LE16, [extra]`,
/// `DD` before the RSP of 82, the read data streamed as `00 n <n bytes>` chunks before the RSP of 83.
enum UFRDESFireCommandHandler {
    /// The outcome of one transaction on the card.
    struct Transaction: Sendable {
        /// The reader's answer bytes.
        var answer: [UInt8]
        /// The card after the transaction, nil when it was not touched.
        var card: (any VirtualCard)?
        /// The command APDUs the card received.
        var commands: [[UInt8]] = []
    }

    /// How the reader reports the 8x commands.
    struct Settings: Sendable {
        /// The exec_time of every RSP_EXT, in ms.
        var executionTime: UInt16
        /// Largest chunk of a streamed read, 1–255.
        var readChunkSize: Int
    }

    /// The byte 82 sends after its CMD_EXT, before the RSP: `DD`, done (ufr.md §2.3).
    static let writeDone: UInt8 = 0xDD

    /// The RSP of command `code` with `status`, exec_time and `extra` (82: after `DD`).
    static func reply(code: UInt8, status: UInt16, settings: Settings, extra: [UInt8] = []) -> [UInt8] {
        prefix(code)
            + UFRWireFormat.response(
                code: code, ext: littleEndian16(status) + littleEndian16(settings.executionTime) + extra)
    }

    /// The RSP with no card in the field: RSP_EXT exec_time only (82: after `DD`).
    static func noCardReply(code: UInt8, settings: Settings) -> [UInt8] {
        prefix(code) + UFRWireFormat.response(code: code, ext: littleEndian16(settings.executionTime))
    }

    private static func prefix(_ code: UInt8) -> [UInt8] { code == 0x82 ? [writeDone] : [] }

    /// DESFIRE_WRITE_AES_KEY (8E): Par0 KEY_TYPE, CMD_EXT [0] slot, [1..16] the key. RSP_EXT
    /// `00 <COM code>`: `00 00` written, `00 76` KEYS_LOCKED, `00 07` MAX_KEY_INDEX_EXCEEDED for a
    /// slot above 15, `00 0F` PARAMETERS_ERROR for KEY_TYPE 3K3DES (1) or above 3 (checked in that
    /// order). A CMD_EXT of another length: ERR PARAMETERS_ERROR. AES (0), DES (2, 8 bytes + 8
    /// zeros) and 2K3DES (3) keys are all stored as their 16 bytes; the command using a slot
    /// names the type.
    static func writeReaderKey(keyType: UInt8, ext: [UInt8], into keys: inout SimulatedUFRReaderKeys) -> [UInt8] {
        guard ext.count == 1 + SimulatedUFRReaderKeys.keyLength else { return UFRWireFormat.error(0x0F) }
        let code: UInt8
        if keys.isLocked {
            code = 0x76
        } else if Int(ext[0]) >= SimulatedUFRReaderKeys.slotCount {
            code = 0x07
        } else if UFRDESFireKeySource.keyType(code: keyType) == nil {
            code = 0x0F
        } else {
            keys.store(Array(ext[1...]), inSlot: Int(ext[0]))
            code = 0x00
        }
        return UFRWireFormat.response(code: 0x8E, ext: [0x00, code])
    }

    /// Runs command `code` (82–86, 8C, 8D) on `card`.
    ///
    /// - Parameters:
    ///   - card: the card in the field (nil: the exec_time-only reply).
    ///   - sessionOpen: whether a 93 session holds the card active; otherwise the card is
    ///     powered on (activated) first.
    ///   - keys: the reader key slots.
    static func answer(
        code: UInt8, parameter0: UInt8, ext: [UInt8], card: (any VirtualCard)?, sessionOpen: Bool,
        keys: SimulatedUFRReaderKeys, settings: Settings
    ) async -> Transaction {
        let request: UFRDESFireRequest
        do {
            request = try UFRDESFireRequest.parse(code: code, parameter0: parameter0, ext: ext)
        } catch {
            switch error {
            case .malformed: return Transaction(answer: UFRWireFormat.error(0x0F))
            case .status(let status): return Transaction(answer: reply(code: code, status: status, settings: settings))
            }
        }
        guard var active = card else { return Transaction(answer: noCardReply(code: code, settings: settings)) }
        guard active.technology.isISODEP else {
            return Transaction(answer: reply(code: code, status: UFRDESFireStatus.notISODEPCard, settings: settings))
        }
        if !sessionOpen { active.powerOn() }
        let box = VirtualCardBox(active)
        let client = DESFireClient(channel: VirtualCardChannel(box: box))
        let outcome = await run(request, keys: keys, client: client)
        var answer = reply(code: code, status: outcome.status, settings: settings, extra: outcome.extra)
        if !outcome.data.isEmpty {
            answer = UFRWireFormat.streamedChunks(outcome.data, chunkSize: settings.readChunkSize) + answer
        }
        return Transaction(answer: answer, card: await box.card, commands: await box.commands)
    }

    /// What a run gave: the status, the RSP_EXT extra bytes, the data to stream (83).
    struct Outcome: Sendable, Equatable {
        var status: UInt16
        var extra: [UInt8] = []
        var data: [UInt8] = []
    }

    /// The authentication step failed (3003 KEY_AUTH_ERROR), whatever the cause.
    private struct AuthenticationStepFailed: Error {}

    /// The native sequence of each command (desfire.md §8), one whole transaction.
    static func run(_ request: UFRDESFireRequest, keys: SimulatedUFRReaderKeys, client: DESFireClient) async
        -> Outcome
    {
        do {
            switch request {
            case .freeMemory:
                try await client.selectApplication(.picc)
                let free = try await client.getFreeMemory()
                return Outcome(
                    status: UFRDESFireStatus.ok, extra: SimulatedUFRReader.littleEndian(UInt32(clamping: free)))
            case .formatCard(let key):
                try await enter(client, aid: 0, keyNumber: 0, key: key, keys: keys)
                try await client.formatPICC()
            case .createApplication(let aid, let key, let settings, let keyCount, let keyType):
                try await enter(client, aid: 0, keyNumber: 0, key: key, keys: keys)
                try await client.createApplication(
                    try DESFireApplicationID(aid), settings: settings, keyCount: keyCount, keyType: keyType)
            case .createStandardFile(let aid, let key, let file, let rights, let size, let commMode):
                try await enter(client, aid: aid, keyNumber: 0, key: key, keys: keys)
                try await client.createDataFile(file: file, size: size, commMode: commMode, accessRights: rights)
            case .readData(let access):
                try await enter(client, aid: access.aid, keyNumber: access.keyNumber, key: access.key, keys: keys)
                let data = try await client.readData(
                    file: access.file, offset: access.offset, length: access.length, commMode: access.commMode)
                return Outcome(status: UFRDESFireStatus.ok, data: data)
            case .writeData(let access, let data):
                try await enter(client, aid: access.aid, keyNumber: access.keyNumber, key: access.key, keys: keys)
                try await client.writeData(
                    file: access.file, offset: access.offset, data: data, commMode: access.commMode)
            case .changeKey(let change):
                try await enter(
                    client, aid: change.aid, keyNumber: change.authenticationKeyNumber, key: change.authenticationKey,
                    keys: keys)
                let same = change.keyNumber == change.authenticationKeyNumber
                try await client.changeKey(
                    keyNumber: change.keyNumber, to: try change.newKey.key(in: keys),
                    oldKey: same ? nil : try change.oldKey.key(in: keys))
            }
            return Outcome(status: UFRDESFireStatus.ok)
        } catch is AuthenticationStepFailed {
            return Outcome(status: UFRDESFireStatus.keyAuthenticationError)
        } catch {
            return Outcome(status: UFRDESFireStatus.status(for: error))
        }
    }

    /// SelectApplication `aid`, then authenticate with `key` as key `keyNumber` when there is one.
    private static func enter(
        _ client: DESFireClient, aid: UInt32, keyNumber: UInt8, key: UFRDESFireKeySource?,
        keys: SimulatedUFRReaderKeys
    ) async throws {
        try await client.selectApplication(try DESFireApplicationID(aid))
        guard let key else { return }
        let resolved = try key.key(in: keys)
        do { try await client.authenticate(keyNumber: keyNumber, key: resolved) } catch {
            throw AuthenticationStepFailed()
        }
    }

    static func littleEndian16(_ value: UInt16) -> [UInt8] {
        [UInt8(truncatingIfNeeded: value), UInt8(truncatingIfNeeded: value >> 8)]
    }
}
