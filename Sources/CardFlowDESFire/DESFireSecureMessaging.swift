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
            if case .plain = protection { return Self.joined(header, data) }
            throw .notAuthenticated(command: command)
        }
        let body: [UInt8]
        switch (secure.flavour, protection) {
        case (.ev2, _):
            body = try protectEV2(
                command, header: header, data: data, mode: ev2Mode(protection, fileMode: fileMode), session: secure)
        case (.ev1, .plain):
            _ = try secure.cmac(Self.message(command, header, data))
            body = Self.joined(header, data)
        case (.ev1, .mac):
            let mac = try secure.cmac(Self.message(command, header, data))
            var field = Self.joined(header, data, reserving: 8)
            field += mac[..<8]
            body = field
        case (.ev1, .enciphered):
            // E(data ‖ CRC32(cmd ‖ header ‖ data) ‖ zeros), the CRC taken over the parts in place.
            var crc = DESFireCRC32.checksum(appending: command.rawValue, to: DESFireCRC32.initialValue)
            crc = DESFireCRC32.checksum(header[...], continuing: crc)
            crc = DESFireCRC32.checksum(data[...], continuing: crc)
            var cryptogram = Self.joined([], data, reserving: 4 + secure.blockSize)
            DESFireCRC32.append(crc, to: &cryptogram)
            try secure.encryptEV1(inPlace: &cryptogram)
            body = Self.joined(header, cryptogram)
        case (.ev1, .cryptogram):
            var cryptogram = data
            try secure.encryptEV1(inPlace: &cryptogram)
            body = Self.joined(header, cryptogram)
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

    /// `command ‖ header ‖ data`, what the EV1 CMAC covers, in one array.
    static func message(_ command: DESFireCommand, _ header: [UInt8], _ data: [UInt8]) -> [UInt8] {
        var message: [UInt8] = []
        message.reserveCapacity(1 + header.count + data.count)
        message.append(command.rawValue)
        message += header
        message += data
        return message
    }

    /// `first ‖ second`: one of them when the other is empty and nothing is reserved, else one new
    /// array with room for `reserving` more bytes.
    static func joined(_ first: [UInt8], _ second: [UInt8], reserving extra: Int = 0) -> [UInt8] {
        if extra == 0, second.isEmpty { return first }
        if extra == 0, first.isEmpty { return second }
        var joined: [UInt8] = []
        joined.reserveCapacity(first.count + second.count + extra)
        joined += first
        joined += second
        return joined
    }

    /// `answer` is consumed: deciphered in place when nothing else holds it.
    private func unprotect(
        _ command: DESFireCommand, _ answer: consuming [UInt8],
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
            // The CMAC covers data ‖ 00 (the status); that array then becomes the data.
            let dataLength = answer.count - 8
            var covered: [UInt8] = []
            covered.reserveCapacity(dataLength + 1)
            covered += answer[..<dataLength]
            covered.append(0x00)
            let expected = try secure.cmac(covered)
            guard expected[..<8].elementsEqual(answer[dataLength...]) else { throw broken("CMAC mismatch") }
            covered.removeLast()
            data = covered
        case (.ev1, .enciphered(let length)):
            guard !answer.isEmpty, answer.count % secure.blockSize == 0 else {
                throw broken("enciphered answer of \(answer.count) bytes is not whole blocks")
            }
            var plaintext = answer
            try secure.decryptEV1(inPlace: &plaintext)
            guard
                let found = Self.locateCRC(
                    plaintext, length: length, crcLength: 4, blockSize: secure.blockSize,
                    crc: { DESFireCRC32.checksum(appending: 0x00, to: DESFireCRC32.checksum($0)) })
            else {
                throw broken("CRC32 of the deciphered answer does not match")
            }
            plaintext.removeLast(plaintext.count - found)
            data = plaintext
        case (.legacy, .plain):
            data = answer
        case (.legacy, .mac):
            guard answer.count >= 4 else { throw broken("answer of \(answer.count) bytes has no MAC") }
            let macStart = answer.count - 4
            data = Array(answer[..<macStart])
            guard try secure.legacyMAC(data) == Array(answer[macStart...]) else { throw broken("MAC mismatch") }
        case (.legacy, .enciphered(let length)):
            guard !answer.isEmpty, answer.count % secure.blockSize == 0 else {
                throw broken("enciphered answer of \(answer.count) bytes is not whole blocks")
            }
            let plaintext = try secure.legacyDecrypt(answer)
            guard
                let found = Self.locateCRC(
                    plaintext, length: length, crcLength: 2, blockSize: secure.blockSize,
                    crc: { UInt32(CRC16A.checksum(Array($0))) })
            else {
                throw broken("CRC16 of the deciphered answer does not match")
            }
            data = Array(plaintext[..<found])
        }
        session = secure
        return data
    }

    /// The length of the data in `plaintext` = data ‖ CRC ‖ padding (zeros, or 0x80 then zeros),
    /// `nil` when no reading checks out. With an unknown length the candidates are tried from the
    /// longest down. `crc` is the CRC of a candidate's data, compared with the `crcLength` bytes
    /// after it read least significant byte first; nothing is copied.
    static func locateCRC(
        _ plaintext: [UInt8], length: Int?, crcLength: Int, blockSize: Int,
        crc: (ArraySlice<UInt8>) -> UInt32
    ) -> Int? {
        let knownLength = length
        let longest = plaintext.count - crcLength
        guard longest >= 0 else { return nil }
        func valid(_ length: Int) -> Bool {
            guard length >= 0 else { return false }
            let tail = plaintext[(length + crcLength)...]
            // Known lengths are padded with zeros; unknown ones may use 0x80 then zeros.
            let zeros =
                tail.allSatisfy { $0 == 0 }
                || (knownLength == nil && tail.first == 0x80 && tail.dropFirst().allSatisfy { $0 == 0 })
            guard zeros else { return false }
            var sent: UInt32 = 0
            for index in 0..<crcLength { sent |= UInt32(plaintext[length + index]) << (8 * index) }
            return crc(plaintext[..<length]) == sent
        }
        if let length { return length <= longest && valid(length) ? length : nil }
        for length in stride(from: longest, through: max(0, longest - blockSize), by: -1) where valid(length) {
            // A CRC without final XOR over data ‖ its own CRC is zero, so data ‖ CRC followed by zero
            // padding looks valid too: prefer the shorter reading while it is also valid.
            var found = length
            while valid(found - crcLength) { found -= crcLength }
            return found
        }
        return nil
    }
}
