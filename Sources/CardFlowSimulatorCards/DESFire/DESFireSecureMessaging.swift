import CardFlowCrypto

/// Card-side secure messaging (spec §4.4 EV1, §4.5 legacy D40, §9 EV2).
///
/// All functions work on the native message (command byte, clear header, data) and keep the EV1
/// IV chain in the session up to date; EV2 goes through the shared ``EV2CardSession``. Failures
/// are reported as the status the card answers.
enum DESFireSecureMessaging {
    /// EV1: a plain (or MAC-less) command advances the IV by its CMAC.
    static func advance(_ session: inout DESFireSession, over message: [UInt8]) throws(DESFireCardStatus) {
        guard session.mode == .ev1 else { return }
        session.iv = try guarded { () throws(CardCryptoError) in
            try BlockCipherCMAC.mac(message, cipher: session.cipher, iv: session.iv)
        }
    }

    /// Legacy 4-byte MAC over `data` only: zero-padded, CBC-encrypted from IV 0, first 4 bytes of the last block.
    static func legacyMAC(_ data: [UInt8], session: DESFireSession) throws(DESFireCardStatus) -> [UInt8] {
        let padded = BlockPadding.zeroPadded(data, blockSize: session.blockSize)
        let encrypted = try guarded { () throws(CardCryptoError) in
            try session.cipher.encryptCBC(padded.isEmpty ? session.zeroIV : padded, iv: session.zeroIV)
        }
        let last = encrypted.suffix(session.blockSize)
        return Array(last.prefix(4))
    }

    /// Number of bytes the MACed or enciphered form of `plainLength` data bytes takes on the wire.
    static func protectedLength(_ plainLength: Int, mode: DESFireCommunicationMode, session: DESFireSession?) -> Int {
        guard let session else { return plainLength }
        switch (mode, session.mode) {
        case (.plain, _): return plainLength
        case (.mac, .legacy): return plainLength + 4
        case (.mac, .ev1): return plainLength + 8
        case (.enciphered, .legacy): return padded(plainLength + 2, session.blockSize)
        case (.enciphered, .ev1): return padded(plainLength + 4, session.blockSize)
        case (.mac, .ev2): return EV2CardSession.protectedLength(plainLength, .mac)
        case (.enciphered, .ev2): return EV2CardSession.protectedLength(plainLength, .full)
        }
    }

    /// Verifies and strips the protection of a command's data part. `header` is the clear part
    /// (command byte first) the EV1 CMAC and CRC32 cover; `protected` follows it on the wire;
    /// `plainLength` is the expected data length.
    static func unwrapCommand(
        header: [UInt8], protected: [UInt8], plainLength: Int, mode: DESFireCommunicationMode,
        session: inout DESFireSession?
    ) throws(DESFireCardStatus) -> [UInt8] {
        guard var active = session else {
            guard protected.count == plainLength else { throw .lengthError }
            return protected
        }
        defer { session = active }
        guard protected.count == protectedLength(plainLength, mode: mode, session: active) else { throw .lengthError }
        switch (mode, active.mode) {
        case (.plain, .ev2):
            return protected
        case (.mac, .ev2), (.enciphered, .ev2):
            let clear = Array(header.dropFirst())
            let payload = try unwrapEV2(
                active, ins: header.first ?? 0, clear + protected, headerLength: clear.count,
                protection: mode == .mac ? .mac : .full
            ).payload
            guard payload.count == plainLength else { throw .lengthError }
            return payload
        case (.plain, _):
            try advance(&active, over: header + protected)
            return protected
        case (.mac, .legacy):
            let data = Array(protected.prefix(plainLength))
            guard try legacyMAC(data, session: active) == Array(protected.suffix(4)) else { throw .integrityError }
            return data
        case (.mac, .ev1):
            let data = Array(protected.prefix(plainLength))
            let mac = try guarded { () throws(CardCryptoError) in
                try BlockCipherCMAC.mac(header + data, cipher: active.cipher, iv: active.iv)
            }
            guard Array(mac.prefix(8)) == Array(protected.suffix(8)) else { throw .integrityError }
            active.iv = mac
            return data
        case (.enciphered, .legacy):
            let plain = try guarded { () throws(CardCryptoError) in
                try active.cipher.legacySendModeRecover(protected, iv: active.zeroIV)
            }
            let data = Array(plain.prefix(plainLength))
            guard Array(plain[plainLength..<plainLength + 2]) == CRC16A.bytes(data),
                plain[(plainLength + 2)...].allSatisfy({ $0 == 0 })
            else { throw .integrityError }
            return data
        case (.enciphered, .ev1):
            // Deciphered in its own array, the CRC32 over header ‖ data read in place, the array
            // then cut to the data.
            var plain = protected
            try decipherEV1(inPlace: &plain, session: &active)
            let crc = DESFireCRC32.checksum(plain[..<plainLength], continuing: DESFireCRC32.checksum(header))
            guard plain[plainLength..<plainLength + 4].elementsEqual(littleEndian(crc)),
                plain[(plainLength + 4)...].allSatisfy({ $0 == 0 })
            else { throw .integrityError }
            plain.removeLast(plain.count - plainLength)
            return plain
        }
    }

    /// EV2: checks and strips the protection of a command (`header` after the instruction byte stays
    /// clear). The counter moves when the answer is wrapped.
    static func unwrapEV2(
        _ session: DESFireSession, ins: UInt8, _ data: [UInt8], headerLength: Int, protection: EV2CardProtection
    ) throws(DESFireCardStatus) -> (header: [UInt8], payload: [UInt8]) {
        guard let ev2 = session.ev2 else { throw .authenticationError }
        do {
            return try ev2.unwrapCommand(ins: ins, data, headerLength: headerLength, protection: protection)
        } catch .length {
            throw .lengthError
        } catch {
            throw .integrityError
        }
    }

    /// EV1: CBC-decrypts `ciphertext` from the session IV; the IV becomes its last block.
    static func decipherEV1(_ ciphertext: [UInt8], session: inout DESFireSession) throws(DESFireCardStatus) -> [UInt8] {
        var plain = ciphertext
        try decipherEV1(inPlace: &plain, session: &session)
        return plain
    }

    /// EV1: ``decipherEV1(_:session:)`` with the plaintext written over `data`.
    static func decipherEV1(inPlace data: inout [UInt8], session: inout DESFireSession) throws(DESFireCardStatus) {
        guard !data.isEmpty, data.count % session.blockSize == 0 else { throw .lengthError }
        let (cipher, iv, next) = (session.cipher, session.iv, Array(data.suffix(session.blockSize)))
        try guarded { () throws(CardCryptoError) in try cipher.decryptCBC(inPlace: &data, iv: iv) }
        session.iv = next
    }

    /// A CRC32 as DESFire sends it, least significant byte first, without an array.
    static func littleEndian(_ crc: UInt32) -> some Collection<UInt8> {
        (0..<4).lazy.map { UInt8(truncatingIfNeeded: crc >> (8 * $0)) }
    }

    /// Legacy: recovers a send-mode-deciphered cryptogram (IV 0).
    static func recoverLegacy(_ ciphertext: [UInt8], session: DESFireSession) throws(DESFireCardStatus) -> [UInt8] {
        guard !ciphertext.isEmpty, ciphertext.count % session.blockSize == 0 else { throw .lengthError }
        return try guarded { () throws(CardCryptoError) in
            try session.cipher.legacySendModeRecover(ciphertext, iv: session.zeroIV)
        }
    }

    /// Protects response data of a successful command (final status 00).
    static func wrapResponse(
        _ data: [UInt8], protection: DESFireReply.Protection,
        session: inout DESFireSession?
    ) throws(DESFireCardStatus) -> [UInt8] {
        guard var active = session else { return data }
        defer { session = active }
        switch (protection, active.mode) {
        case (.none, _):
            return data
        case (_, .ev2):
            guard var ev2 = active.ev2 else { throw .authenticationError }
            let ev2Protection: EV2CardProtection =
                switch protection {
                case .plainData, .none: .plain
                case .plain, .mac: .mac
                case .enciphered: .full
                }
            let wire = try guarded { () throws(CardCryptoError) in
                try ev2.wrapResponse(data, protection: ev2Protection)
            }
            active.ev2 = ev2
            return wire
        case (.plain, .legacy), (.plainData, .legacy):
            return data
        case (.mac, .legacy):
            return data.isEmpty ? data : data + (try legacyMAC(data, session: active))
        case (.plain, .ev1), (.plainData, .ev1), (.mac, .ev1):
            // data ‖ 00 is CMACed; the same array, room reserved, becomes data ‖ CMAC(8) (and the
            // 91 00 a one-frame answer appends).
            var wire: [UInt8] = []
            wire.reserveCapacity(data.count + 8 + 2)
            wire += data
            wire.append(0x00)
            let (cipher, iv) = (active.cipher, active.iv)
            let mac = try guarded { () throws(CardCryptoError) in
                try BlockCipherCMAC.mac(wire, cipher: cipher, iv: iv)
            }
            active.iv = mac
            wire.removeLast()
            wire += mac[..<8]
            return wire
        case (.enciphered, .legacy):
            let plain = BlockPadding.zeroPadded(data + CRC16A.bytes(data), blockSize: active.blockSize)
            let iv = active.zeroIV
            return try guarded { () throws(CardCryptoError) in try active.cipher.encryptCBC(plain, iv: iv) }
        case (.enciphered, .ev1):
            // data ‖ CRC32(data ‖ 00) ‖ zeros, enciphered in place, with room for the 91 00 a
            // one-frame answer appends.
            var wire: [UInt8] = []
            wire.reserveCapacity(padded(data.count + 4, active.blockSize) + 2)
            wire += data
            DESFireCRC32.append(
                DESFireCRC32.checksum(appending: 0x00, to: DESFireCRC32.checksum(data)), to: &wire)
            wire += repeatElement(0, count: padded(wire.count, active.blockSize) - wire.count)
            let (cipher, iv) = (active.cipher, active.iv)
            try guarded { () throws(CardCryptoError) in try cipher.encryptCBC(inPlace: &wire, iv: iv) }
            active.iv = Array(wire.suffix(active.blockSize))
            return wire
        }
    }

    static func padded(_ length: Int, _ blockSize: Int) -> Int {
        (length + blockSize - 1) / blockSize * blockSize
    }

    /// Runs a CardFlowCrypto operation; a primitive failure (never expected with validated inputs)
    /// becomes an integrity error instead of a trap.
    static func guarded<T>(_ body: () throws(CardCryptoError) -> T) throws(DESFireCardStatus) -> T {
        do { return try body() } catch { throw .integrityError }
    }
}
