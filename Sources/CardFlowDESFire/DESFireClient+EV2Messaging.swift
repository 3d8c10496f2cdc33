import CardFlow

extension DESFireClient {
    /// The EV2 comm mode of a command: a file-data command travels in its file's mode, any other
    /// command in CommMode.MAC, or CommMode.Full when its data are enciphered.
    func ev2Mode(_ protection: DESFireCommandProtection, fileMode: DESFireCommMode?) -> DESFireCommMode {
        if let fileMode { return fileMode }
        switch protection {
        case .plain, .mac: return .mac
        case .enciphered, .cryptogram: return .enciphered
        }
    }

    /// The EV2 comm mode of an answer, by the same rule as the command's.
    func ev2Mode(_ protection: DESFireResponseProtection, fileMode: DESFireCommMode?) -> DESFireCommMode {
        if let fileMode { return fileMode }
        switch protection {
        case .plain, .mac, .endsSession: return .mac
        case .enciphered: return .enciphered
        }
    }

    /// The data field of a command in an EV2 session: `header ‖ data`, `‖ MACt`, or
    /// `header ‖ E(data ‖ padding) ‖ MACt`. The counter moves when the answer is verified.
    func protectEV2(
        _ command: DESFireCommand, header: [UInt8], data: [UInt8], mode: DESFireCommMode,
        session secure: DESFireSecureSession
    ) throws(DESFireError) -> [UInt8] {
        guard let ev2Session = secure.ev2 else { throw .notAuthenticated(command: command) }
        return try ev2(command) { () throws(EV2Error) in
            try ev2Session.protect(EV2Instruction(command.rawValue), header: header, data: data, mode: mode)
        }
    }

    /// Checks an EV2 answer (its MACt, and deciphers it in CommMode.Full) and advances the counter
    /// in `secure`. `answer` is the data of every frame, the status already known to be `00`.
    func unprotectEV2(
        _ command: DESFireCommand, _ answer: [UInt8], mode: DESFireCommMode,
        session secure: inout DESFireSecureSession
    ) throws(DESFireError) -> [UInt8] {
        guard var ev2Session = secure.ev2 else { throw .notAuthenticated(command: command) }
        let response = ResponseAPDU(data: answer, sw1: 0x91, sw2: 0x00)
        let data = try ev2(command) { () throws(EV2Error) in
            try ev2Session.verifyResponse(response, to: EV2Instruction(command.rawValue), mode: mode)
        }
        secure.ev2 = ev2Session
        return data
    }
}
