/// ISO 7816 unwrapping, frame chaining and command dispatch.
extension DESFireCard {
    /// Answers one APDU: an ISO-wrapped native command `90 INS 00 00 [Lc data] 00` with
    /// `data 91 SW2`; the ISO 7816-4 commands SELECT (by DF name or file identifier), READ BINARY
    /// and UPDATE BINARY with an ISO status word; anything else with an ISO 7816 error.
    public mutating func process(_ command: [UInt8]) -> [UInt8] {
        guard let apdu = ISO7816CommandAPDU(parsing: command) else { return [0x67, 0x00] }
        if apdu.cla == 0x00 {
            switch apdu.ins {
            case 0xA4: return isoSelect(apdu)
            case 0xB0: return isoReadBinary(apdu)
            case 0xD6: return isoUpdateBinary(apdu)
            default: return [0x6D, 0x00]
            }
        }
        guard apdu.cla == 0x90 else { return [0x6E, 0x00] }
        guard apdu.p1 == 0, apdu.p2 == 0 else { return [0x6A, 0x86] }
        let ins = apdu.ins
        let data = apdu.data
        if ins == 0xAF { return continueFrames(data) }
        // A new command abandons whatever chain or authentication was in progress.
        pendingFrames = []
        pendingCommand = nil
        pendingAuthentication = nil
        return execute(ins, data)
    }

    /// ISO SELECT by DF name (`00 A4 04 00 Lc name [Le]`): the DESFire PICC name
    /// `D2760000850100` selects the PICC level (libfreefare does this at connect), an application's
    /// DF name selects it. Like SelectApplication it ends the session and the transaction.
    /// SELECT by file identifier (P1 `00`, `02`): ``isoSelectByFileID(_:)``.
    private mutating func isoSelect(_ apdu: ISO7816CommandAPDU) -> [UInt8] {
        if apdu.p1 == 0x00 || apdu.p1 == 0x02 {
            pendingFrames = []
            pendingCommand = nil
            pendingAuthentication = nil
            return isoSelectByFileID(apdu)
        }
        guard apdu.p1 == 0x04, apdu.p2 == 0x00 || apdu.p2 == 0x0C else { return [0x6A, 0x86] }
        guard (1...16).contains(apdu.data.count) else { return [0x67, 0x00] }
        pendingFrames = []
        pendingCommand = nil
        pendingAuthentication = nil
        let target: UInt32
        if apdu.data == Self.piccDFName {
            target = 0
        } else if let application = applications.first(where: { $0.dfName == apdu.data }) {
            target = application.aid
        } else {
            return [0x6A, 0x82]
        }
        selectDedicatedFile(target)
        return [0x90, 0x00]
    }

    /// The ISO DF name of the PICC level.
    static let piccDFName: [UInt8] = [0xD2, 0x76, 0x00, 0x00, 0x85, 0x01, 0x00]

    /// `90 AF`: the next response frame, the second authentication pass, or more command data.
    private mutating func continueFrames(_ data: [UInt8]) -> [UInt8] {
        if !pendingFrames.isEmpty {
            guard data.isEmpty else {
                pendingFrames = []
                return fail(.lengthError)
            }
            let frame = pendingFrames.removeFirst()
            return frame + [0x91, pendingFrames.isEmpty ? 0x00 : 0xAF]
        }
        if let authentication = pendingAuthentication {
            pendingAuthentication = nil
            do throws(DESFireCardStatus) {
                let reply = try completeAuthentication(authentication, token: data)
                return reply + [0x91, 0x00]
            } catch {
                return fail(error)
            }
        }
        if let pending = pendingCommand {
            pendingCommand = nil
            return execute(pending.ins, pending.data + data)
        }
        return fail(.illegalCommand)
    }

    /// Runs a complete (or first-frame) native command and frames its answer.
    private mutating func execute(_ ins: UInt8, _ data: [UInt8]) -> [UInt8] {
        do throws(DESFireCardStatus) {
            let reply = try dispatch(ins, data)
            if let expected = reply.needsMoreData {
                guard data.count < expected else { throw DESFireCardStatus.lengthError }
                pendingCommand = (ins, data)
                return [0x91, 0xAF]
            }
            if reply.expectsAdditionalFrame { return reply.data + [0x91, 0xAF] }
            let wire = try DESFireSecureMessaging.wrapResponse(
                reply.data, protection: reply.protection, session: &session)
            return frame(wire, sizes: reply.frameSizes)
        } catch {
            return fail(error)
        }
    }

    /// Splits a response into frames, returns the first and keeps the rest for `90 AF`. `wire` is
    /// consumed: a one-frame answer gets its status appended in place.
    private mutating func frame(_ wire: consuming [UInt8], sizes: [Int]?) -> [UInt8] {
        if sizes == nil, wire.count <= Self.maxResponseFrame {
            // One frame: the answer and 91 00, nothing kept for 90 AF.
            pendingFrames = []
            var answer = wire
            answer.append(0x91)
            answer.append(0x00)
            return answer
        }
        var frames: [[UInt8]] = []
        var rest = wire[...]
        if let sizes {
            for size in sizes where rest.count > size {
                frames.append(Array(rest.prefix(size)))
                rest = rest.dropFirst(size)
            }
            frames.append(Array(rest))
        } else {
            repeat {
                frames.append(Array(rest.prefix(Self.maxResponseFrame)))
                rest = rest.dropFirst(Self.maxResponseFrame)
            } while !rest.isEmpty
        }
        let first = frames.removeFirst()
        pendingFrames = frames
        return first + [0x91, frames.isEmpty ? 0x00 : 0xAF]
    }

    /// An error answer: no MAC, the session ends and the pending transaction is aborted.
    mutating func fail(_ status: DESFireCardStatus) -> [UInt8] {
        session = nil
        pendingAuthentication = nil
        pendingCommand = nil
        pendingFrames = []
        transaction = DESFireTransaction()
        return [0x91, status.rawValue]
    }

    private mutating func dispatch(_ ins: UInt8, _ data: [UInt8]) throws(DESFireCardStatus) -> DESFireReply {
        switch ins {
        case 0x0A, 0x1A, 0xAA: return try beginAuthentication(ins, data)
        case 0x71, 0x77: return try beginAuthenticationEV2(ins, data)
        case 0x5A: return try selectApplication(data)
        // Commands whose data carries its own protection.
        case 0x54: return try changeKeySettings(data)
        case 0xC4: return try changeKey(data)
        case 0x5F: return try changeFileSettings(data)
        case 0x3D: return try writeData(data)
        case 0x3B: return try writeRecord(data)
        case 0x0C, 0xDC, 0x1C: return try changeValue(ins, data)
        case 0xCE: return try createTransactionMACFile(data)
        case 0x5C: return try setConfiguration(data)
        default: break
        }
        // Plain commands: in an EV1 session the command's CMAC advances the IV (not sent); in an
        // EV2 session they carry a MACt (file reads of plain files excepted).
        guard Self.plainCommands.contains(ins) else { throw .illegalCommand }
        let data = try acceptPlainCommand(ins, data)
        switch ins {
        case 0x60: return try getVersion(data)
        case 0x51: return try getCardUID(data)
        case 0xFC: return try formatPICC(data)
        case 0x6E: return try getFreeMemory(data)
        case 0x6A: return try getApplicationIDs(data)
        case 0x6D: return try getDFNames(data)
        case 0xCA: return try createApplication(data)
        case 0xDA: return try deleteApplication(data)
        case 0x45: return try getKeySettings(data)
        case 0x64: return try getKeyVersion(data)
        case 0x6F: return try getFileIDs(data)
        case 0x61: return try getISOFileIDs(data)
        case 0xF5: return try getFileSettings(data)
        case 0xCD, 0xCB: return try createDataFile(ins, data)
        case 0xCC: return try createValueFile(data)
        case 0xC1, 0xC0: return try createRecordFile(ins, data)
        case 0xDF: return try deleteFile(data)
        case 0xBD: return try readData(data)
        case 0x6C: return try getValue(data)
        case 0xBB: return try readRecords(data)
        case 0xEB: return try clearRecordFile(data)
        case 0xC7: return try commitTransaction(data)
        case 0xA7: return try abortTransaction(data)
        default: throw .illegalCommand
        }
    }

    private static let plainCommands: Set<UInt8> = [
        0x60, 0x51, 0xFC, 0x6E, 0x6A, 0x6D, 0xCA, 0xDA, 0x45, 0x64, 0x6F, 0x61, 0xF5,
        0xCD, 0xCB, 0xCC, 0xC1, 0xC0, 0xDF, 0xBD, 0x6C, 0xBB, 0xEB, 0xC7, 0xA7,
    ]

    /// Checks the protection of a plain command and returns its data: EV1 advances the IV over
    /// it, EV2 checks and strips its MACt.
    private mutating func acceptPlainCommand(_ ins: UInt8, _ data: [UInt8]) throws(DESFireCardStatus) -> [UInt8] {
        guard let active = session else { return data }
        guard active.mode == .ev2 else {
            var message: [UInt8] = []
            message.reserveCapacity(1 + data.count)
            message.append(ins)
            message += data
            try DESFireSecureMessaging.advance(&session!, over: message)
            return data
        }
        let protection = [0xBD, 0x6C, 0xBB].contains(ins) ? ev2ReadCommandProtection(ins, data) : .mac
        return try DESFireSecureMessaging.unwrapEV2(active, ins: ins, data, headerLength: 0, protection: protection)
            .payload
    }

    // MARK: Shared checks

    /// The selected application (or the PICC level).
    var current: DESFireApplication {
        get { selectedAID == 0 ? picc : (applications.first { $0.aid == selectedAID } ?? picc) }
        set {
            if selectedAID == 0 {
                picc = newValue
            } else if let index = applications.firstIndex(where: { $0.aid == selectedAID }) {
                applications[index] = newValue
            }
        }
    }

    /// Whether the session was opened with key 0 of the current level.
    var authenticatedWithMasterKey: Bool { session?.keyNumber == 0 }

    func requireLength(_ data: [UInt8], _ count: Int) throws(DESFireCardStatus) {
        guard data.count == count else { throw .lengthError }
    }

    /// Master-key authentication unless `free`: no session → AE, another key → AE.
    func requireMasterKey(unless free: Bool) throws(DESFireCardStatus) {
        guard !free else { return }
        guard authenticatedWithMasterKey else { throw .authenticationError }
    }

    /// Application-level command: an application must be selected.
    func requireApplication() throws(DESFireCardStatus) {
        guard selectedAID != 0 else { throw .permissionDenied }
    }
}
