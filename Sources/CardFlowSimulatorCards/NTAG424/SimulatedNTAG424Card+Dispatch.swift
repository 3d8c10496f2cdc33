import CardFlowCrypto

/// APDU unwrapping, additional frames, secure messaging and command dispatch.
extension SimulatedNTAG424Card {
    /// Answers one APDU: ISO commands (CLA 00) with ISO 7816 status words, ISO-wrapped native
    /// commands (CLA 90) with `data 91 SW2`. Never traps.
    public mutating func process(_ command: [UInt8]) -> [UInt8] {
        guard let apdu = ISO7816CommandAPDU(parsing: command) else { return [0x67, 0x00] }
        switch apdu.cla {
        case 0x00:
            // An ISO command ends a multi-frame exchange.
            pending = nil
            switch apdu.ins {
            case 0xA4: return isoSelect(apdu)
            case 0xB0: return isoReadBinary(apdu)
            case 0xD6: return isoUpdateBinary(apdu)
            default: return [0x6D, 0x00]
            }
        case 0x90:
            guard apdu.p1 == 0, apdu.p2 == 0 else { return [0x6A, 0x86] }
            return native(apdu.ins, apdu.data)
        default:
            return [0x6E, 0x00]
        }
    }

    private mutating func native(_ ins: UInt8, _ data: [UInt8]) -> [UInt8] {
        if ins == 0xAF { return additionalFrame(data) }
        if pending != nil {
            // Another command while the card waits for 90 AF: the exchange is aborted.
            return fail(.commandAborted)
        }
        do throws(NTAG424Status) {
            let answer = try dispatch(ins, data)
            // GetVersion and the authentications leave the rest of the exchange pending.
            return answer + [0x91, pending == nil ? 0x00 : 0xAF]
        } catch {
            return fail(error)
        }
    }

    private mutating func additionalFrame(_ data: [UInt8]) -> [UInt8] {
        guard let current = pending else { return fail(.illegalCommand) }
        pending = nil
        do throws(NTAG424Status) {
            switch current {
            case .frames(var frames):
                guard data.isEmpty else { throw .lengthError }
                guard !frames.isEmpty else { throw .illegalCommand }
                let frame = frames.removeFirst()
                if !frames.isEmpty { pending = .frames(frames) }
                return frame + [0x91, frames.isEmpty ? 0x00 : 0xAF]
            case .authenticateFirst(let keyNumber, let rndB, let pcdCapabilities):
                return try completeAuthenticateFirst(
                    keyNumber: keyNumber, rndB: rndB, pcdCapabilities: pcdCapabilities, token: data)
                    + [0x91, 0x00]
            case .authenticateNonFirst(let keyNumber, let rndB):
                return try completeAuthenticateNonFirst(keyNumber: keyNumber, rndB: rndB, token: data) + [0x91, 0x00]
            }
        } catch {
            return fail(error)
        }
    }

    /// An error answer: no MAC, and the authentication is lost.
    mutating func fail(_ status: NTAG424Status) -> [UInt8] {
        session = nil
        pending = nil
        return [0x91, status.rawValue]
    }

    private mutating func dispatch(_ ins: UInt8, _ data: [UInt8]) throws(NTAG424Status) -> [UInt8] {
        switch ins {
        case 0x60: return try getVersion(data)
        case 0x71: return try beginAuthenticateFirst(data)
        case 0x77: return try beginAuthenticateNonFirst(data)
        case 0x51: return try getCardUID(data)
        case 0xF5: return try getFileSettings(data)
        case 0x5F: return try changeFileSettings(data)
        case 0xAD: return try readData(data)
        case 0x8D: return try writeData(data)
        case 0xF6: return try getFileCounters(data)
        case 0xC4: return try changeKey(data)
        case 0x64: return try getKeyVersion(data)
        case 0x3C: return try readSignature(data)
        case 0x5C: return try setConfiguration(data)
        default: throw .illegalCommand
        }
    }

    // MARK: Secure messaging

    /// Checks and strips the protection of a command: `header` stays in clear, the rest is
    /// plain data, data ‖ MACt, or E(data ‖ padding) ‖ MACt. Outside a session only plain is
    /// possible (callers refuse MAC and Full without one).
    func unwrapCommand(ins: UInt8, _ data: [UInt8], headerLength: Int, mode: SimulatedNTAG424CommunicationMode)
        throws(NTAG424Status) -> (header: [UInt8], payload: [UInt8])
    {
        guard data.count >= headerLength else { throw .lengthError }
        guard let session else { return (Array(data[..<headerLength]), Array(data[headerLength...])) }
        do {
            return try session.unwrapCommand(ins: ins, data, headerLength: headerLength, protection: mode.ev2Protection)
        } catch .length {
            throw .lengthError
        } catch {
            throw .integrityError
        }
    }

    /// Protects an answer in `mode` and moves the command counter on (every command of a
    /// session counts, plain ones too). Without a session the answer is plain.
    mutating func wrapResponse(_ data: [UInt8], mode: SimulatedNTAG424CommunicationMode) throws(NTAG424Status)
        -> [UInt8]
    {
        guard var current = session else { return data }
        let wire = try? current.wrapResponse(data, protection: mode.ev2Protection)
        session = current
        guard let wire else { throw .integrityError }
        return wire
    }

    /// A session must be open with key `keyNumber` (or any key when nil).
    func requireSession(key keyNumber: UInt8? = nil) throws(NTAG424Status) {
        guard let session else { throw .authenticationError }
        if let keyNumber, session.keyNumber != keyNumber { throw .authenticationError }
        guard session.commandCounter < 0xFFFF else { throw .commandAborted }
    }

    /// Native file and key commands work inside the NDEF application.
    func requireApplication() throws(NTAG424Status) {
        guard applicationSelected else { throw .permissionDenied }
    }

    /// How a command whose right is one of `conditions` runs: through the session's key in
    /// the file's mode, for free in plain, or not at all (`9D` when every condition is never,
    /// `AE` when a key is needed that the session does not hold).
    func grant(_ conditions: [UInt8], fileMode: SimulatedNTAG424CommunicationMode) throws(NTAG424Status)
        -> SimulatedNTAG424CommunicationMode
    {
        if let session, conditions.contains(session.keyNumber) {
            guard session.commandCounter < 0xFFFF else { throw .commandAborted }
            return fileMode
        }
        if conditions.contains(SimulatedNTAG424AccessRights.free) { return .plain }
        if conditions.allSatisfy({ $0 == SimulatedNTAG424AccessRights.never }) { throw .permissionDenied }
        throw .authenticationError
    }

    /// The file numbered `number`.
    func fileIndex(_ number: UInt8) throws(NTAG424Status) -> Int {
        guard let index = files.firstIndex(where: { $0.number == number }) else { throw .fileNotFound }
        return index
    }
}

extension SimulatedNTAG424CommunicationMode {
    /// The shared EV2 card-side protection of this mode.
    var ev2Protection: EV2CardProtection {
        switch self {
        case .plain: .plain
        case .mac: .mac
        case .full: .full
        }
    }
}
