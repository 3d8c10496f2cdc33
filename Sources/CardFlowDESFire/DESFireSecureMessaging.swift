import CardFlow
import CardFlowCrypto

/// How the parameters of a command are protected while a session is open.
enum DESFireCommandProtection: Sendable {
    /// Sent plain (EV1: CMAC'ed to advance the IV, CMAC not sent).
    case plain
    /// The MAC/CMAC is appended (EV1 over cmd‖header‖data, legacy over data only).
    case mac
    /// `data` ‖ CRC is enciphered; the header stays clear.
    case enciphered
    /// `data` is a finished cryptogram plaintext (ChangeKey): only padded and enciphered.
    case cryptogram
}

/// How the answer of a command is protected while a session is open.
enum DESFireResponseProtection: Sendable {
    /// EV1: data ‖ CMAC(8); legacy: data.
    case plain
    /// EV1: data ‖ CMAC(8); legacy: data ‖ MAC(4).
    case mac
    /// Enciphered data ‖ CRC ‖ padding; `length` when known.
    case enciphered(length: Int?)
    /// The command ends the session: any trailing bytes are ignored.
    case endsSession
}

extension DESFireClient {
    /// Sends one command under the current session's secure messaging and returns the verified,
    /// deciphered answer data.
    ///
    /// `fileMode` is the comm mode of a file-data command (ReadData, WriteData, value and record
    /// commands). EV1 and legacy sessions need only `protection` and `response`; an EV2 session
    /// sends file-data commands and their answers in `fileMode` and every other command in
    /// CommMode.MAC (CommMode.Full where `protection` or `response` is enciphered).
    func exchange(
        _ command: DESFireCommand, header: [UInt8] = [], data: [UInt8] = [],
        protection: DESFireCommandProtection = .plain,
        response: DESFireResponseProtection = .plain, fileMode: DESFireCommMode? = nil
    ) async throws -> [UInt8] {
        let body = try protect(command, header: header, data: data, protection: protection, fileMode: fileMode)
        let answer = try await transceive(command, body)
        return try unprotect(command, answer, response, fileMode: fileMode)
    }

    /// A plain command whose answer frames are returned separately, the secure-messaging trailer removed.
    func exchangeFrames(_ command: DESFireCommand) async throws -> [[UInt8]] {
        let body = try protect(command, header: [], data: [], protection: .plain, fileMode: nil)
        var frames = try await transceiveFrames(command, body)
        let data = try unprotect(command, frames.flatMap { $0 }, .plain, fileMode: nil)
        // Drop the trailer (CMAC) from the end of the last frames.
        var excess = frames.reduce(0) { $0 + $1.count } - data.count
        while excess > 0, let last = frames.popLast() {
            if last.count > excess { frames.append(Array(last.dropLast(excess))) }
            excess -= min(excess, last.count)
        }
        return frames
    }

    private func protect(
        _ command: DESFireCommand, header: [UInt8], data: [UInt8],
        protection: DESFireCommandProtection, fileMode: DESFireCommMode?
    ) throws(DESFireError) -> [UInt8] {
        guard var secure = session else {
            if case .plain = protection { return header + data }
            throw .notAuthenticated(command: command)
        }
        let message = [command.rawValue] + header + data
        let body: [UInt8]
        switch (secure.flavour, protection) {
        case (.ev2, _):
            body = try protectEV2(
                command, header: header, data: data, mode: ev2Mode(protection, fileMode: fileMode), session: secure)
        case (.ev1, .plain):
            _ = try secure.cmac(message)
            body = header + data
        case (.ev1, .mac):
            body = header + data + MACTruncation.ev1(try secure.cmac(message))
        case (.ev1, .enciphered):
            body = header + (try secure.encryptEV1(data + DESFireCRC32.bytes(message)))
        case (.ev1, .cryptogram):
            body = header + (try secure.encryptEV1(data))
        case (.legacy, .plain):
            body = header + data
        case (.legacy, .mac):
            body = header + data + (try secure.legacyMAC(data))
        case (.legacy, .enciphered):
            body = header + (try secure.legacyEncipher(data + CRC16A.bytes(data)))
        case (.legacy, .cryptogram):
            body = header + (try secure.legacyEncipher(data))
        }
        session = secure
        return body
    }

    private func unprotect(
        _ command: DESFireCommand, _ answer: [UInt8],
        _ protection: DESFireResponseProtection, fileMode: DESFireCommMode?
    ) throws(DESFireError) -> [UInt8] {
        guard var secure = session else { return answer }
        func broken(_ reason: String) -> DESFireError {
            session = nil
            return .integrityCheckFailed(command: command, reason: reason)
        }
        let data: [UInt8]
        switch (secure.flavour, protection) {
        case (_, .endsSession):
            session = nil
            return []
        case (.ev2, _):
            do {
                data = try unprotectEV2(
                    command, answer, mode: ev2Mode(protection, fileMode: fileMode), session: &secure)
            } catch {
                session = nil
                throw error
            }
        case (.ev1, .plain), (.ev1, .mac):
            guard answer.count >= 8 else { throw broken("answer of \(answer.count) bytes has no CMAC") }
            data = Array(answer.dropLast(8))
            let expected = MACTruncation.ev1(try secure.cmac(data + [0x00]))
            guard expected == Array(answer.suffix(8)) else { throw broken("CMAC mismatch") }
        case (.ev1, .enciphered(let length)):
            guard !answer.isEmpty, answer.count % secure.blockSize == 0 else {
                throw broken("enciphered answer of \(answer.count) bytes is not whole blocks")
            }
            let plaintext = try secure.decryptEV1(answer)
            guard
                let found = Self.locateCRC(
                    plaintext, length: length, crcLength: 4, blockSize: secure.blockSize,
                    check: { DESFireCRC32.bytes($0 + [0x00]) })
            else {
                throw broken("CRC32 of the deciphered answer does not match")
            }
            data = found
        case (.legacy, .plain):
            data = answer
        case (.legacy, .mac):
            guard answer.count >= 4 else { throw broken("answer of \(answer.count) bytes has no MAC") }
            data = Array(answer.dropLast(4))
            guard try secure.legacyMAC(data) == Array(answer.suffix(4)) else { throw broken("MAC mismatch") }
        case (.legacy, .enciphered(let length)):
            guard !answer.isEmpty, answer.count % secure.blockSize == 0 else {
                throw broken("enciphered answer of \(answer.count) bytes is not whole blocks")
            }
            let plaintext = try secure.legacyDecrypt(answer)
            guard
                let found = Self.locateCRC(
                    plaintext, length: length, crcLength: 2, blockSize: secure.blockSize,
                    check: { CRC16A.bytes($0) })
            else {
                throw broken("CRC16 of the deciphered answer does not match")
            }
            data = found
        }
        session = secure
        return data
    }

    /// Finds the data in `plaintext` = data ‖ CRC ‖ padding (zeros, or 0x80 then zeros). With an
    /// unknown length the candidates are tried from the longest down.
    static func locateCRC(
        _ plaintext: [UInt8], length: Int?, crcLength: Int, blockSize: Int,
        check: ([UInt8]) -> [UInt8]
    ) -> [UInt8]? {
        let knownLength = length
        let longest = plaintext.count - crcLength
        guard longest >= 0 else { return nil }
        let candidates: [Int]
        if let length {
            candidates = length <= longest ? [length] : []
        } else {
            candidates = Array(stride(from: longest, through: max(0, longest - blockSize), by: -1))
        }
        func valid(_ length: Int) -> Bool {
            guard length >= 0 else { return false }
            let tail = plaintext[(length + crcLength)...]
            // Known lengths are padded with zeros; unknown ones may use 0x80 then zeros.
            let zeros =
                tail.allSatisfy { $0 == 0 }
                || (knownLength == nil && tail.first == 0x80 && tail.dropFirst().allSatisfy { $0 == 0 })
            return zeros && check(Array(plaintext[..<length])) == Array(plaintext[length..<(length + crcLength)])
        }
        for length in candidates where valid(length) {
            // A CRC without final XOR over data ‖ its own CRC is zero, so data ‖ CRC followed by zero
            // padding looks valid too: prefer the shorter reading while it is also valid.
            var found = length
            while knownLength == nil, valid(found - crcLength) { found -= crcLength }
            return Array(plaintext[..<found])
        }
        return nil
    }
}
