import CardFlow
import CardFlowCrypto

extension EV2Session {
    /// The data field of the next command in communication mode `mode` (NT4H2421Gx §9.1.8–9.1.10):
    ///
    /// - `.plain`: `CmdHeader ‖ CmdData`.
    /// - `.mac`: `CmdHeader ‖ CmdData ‖ MACt`.
    /// - `.enciphered` (CommMode.Full): `CmdHeader ‖ E(SesAuthENCKey, IVc, CmdData ‖ padding) ‖ MACt`.
    ///   Padding is ISO/IEC 9797-1 method 2 (`80 00 …`), a whole block when the data is already
    ///   aligned; a command without data (GetCardUID) carries the MACt alone.
    ///
    /// The counter does not move until the answer is verified. A field longer than the card's frame
    /// goes out in `AF` frames; that chaining is the transport's and does not change the bytes.
    ///
    /// ```swift
    /// // AN12196 Table 21: WriteData of 10 bytes to file 3 in CommMode.Full
    /// let field = try session.protect(.writeData, header: [0x03, 0, 0, 0, 0x0A, 0, 0],
    ///                                 data: Array(1...10), mode: .enciphered)
    /// ```
    ///
    /// - Throws: ``EV2Error/commandCounterExhausted(instruction:)`` when CmdCtr is `FFFF`.
    public func protect(
        _ instruction: EV2Instruction, header: [UInt8] = [], data: [UInt8] = [],
        mode: DESFireCommMode
    ) throws(EV2Error) -> [UInt8] {
        _ = try answerCounter(for: instruction)
        switch mode {
        case .plain:
            return header + data
        case .mac:
            return Self.field(header, data, try commandMAC(instruction, header: header, payload: data))
        case .enciphered:
            let cryptogram = try encipher(data)
            return Self.field(header, cryptogram, try commandMAC(instruction, header: header, payload: cryptogram))
        }
    }

    /// `header ‖ payload ‖ mac` in one array.
    private static func field(_ header: [UInt8], _ payload: [UInt8], _ mac: [UInt8]) -> [UInt8] {
        var field: [UInt8] = []
        field.reserveCapacity(header.count + payload.count + mac.count)
        field += header
        field += payload
        field += mac
        return field
    }

    /// The next command as an ISO-wrapped native APDU: `90 INS 00 00 Lc field 00`, with `field` from
    /// ``protect(_:header:data:mode:)``.
    ///
    /// ```swift
    /// let apdu = try session.command(.getFileSettings, header: [0x02], mode: .mac)
    /// apdu.encoded().hexString   // AN12196 Table 7: "90F5000009026597A457C8CD442C00"
    /// ```
    public func command(
        _ instruction: EV2Instruction, header: [UInt8] = [], data: [UInt8] = [],
        mode: DESFireCommMode
    ) throws(EV2Error) -> CommandAPDU {
        try nativeCommandAPDU(instruction, try protect(instruction, header: header, data: data, mode: mode))
    }

    /// Checks the card's answer to the command built last and returns its data; on success CmdCtr
    /// advances by one.
    ///
    /// - `.plain`: the data as received (no MAC in an EV2 plain answer).
    /// - `.mac`: `RespData ‖ MACt`, MACt checked over `00 ‖ CmdCtr + 1 ‖ TI ‖ RespData`.
    /// - `.enciphered`: `E(SesAuthENCKey, IVr, RespData ‖ padding) ‖ MACt`, MACt checked over the
    ///   cryptogram first, then deciphered and the padding removed.
    ///
    /// An answer that came in `AF` frames is given whole: its data concatenated, the last status word.
    ///
    /// ```swift
    /// // AN12196 Table 28: GetCardUID, answer in CommMode.Full
    /// let uid = try session.verifyResponse(response, to: .getCardUID, mode: .enciphered)   // 04958CAA5C5E80
    /// ```
    ///
    /// - Throws: ``EV2Error/cardStatus(_:instruction:)`` for `91 xx` other than `91 00`,
    ///   ``EV2Error/unexpectedStatusWord(_:instruction:)`` for anything but `91 xx`,
    ///   ``EV2Error/integrityCheckFailed(instruction:statusWord:reason:)`` for a wrong MAC or padding,
    ///   ``EV2Error/malformedResponse(instruction:statusWord:reason:)`` for a wrong length.
    public mutating func verifyResponse(
        _ response: ResponseAPDU, to instruction: EV2Instruction,
        mode: DESFireCommMode
    ) throws(EV2Error) -> [UInt8] {
        try Self.requireSuccess(response, to: instruction)
        let statusWord = response.statusWord
        let data: [UInt8]
        switch mode {
        case .plain:
            data = response.data
        case .mac, .enciphered:
            guard response.data.count >= 8 else {
                throw .malformedResponse(
                    instruction: instruction, statusWord: statusWord,
                    reason: "answer of \(response.data.count) bytes has no MAC")
            }
            var payload = Array(response.data.dropLast(8))
            let expected = try responseMAC(for: instruction, payload: payload)
            guard constantTimeEqual(expected, response.data.suffix(8)) else {
                throw .integrityCheckFailed(instruction: instruction, statusWord: statusWord, reason: "MAC mismatch")
            }
            if mode == .enciphered {
                try decipher(&payload, for: instruction, statusWord: statusWord)
            }
            data = payload
        }
        try advanceCounter(for: instruction)
        return data
    }

    /// Throws unless `response` ends in `91 00`.
    ///
    /// For answers that carry no MAC because they end the session, such as ChangeKey of the key
    /// the session was authenticated with (AN12196 Table 26).
    ///
    /// ```swift
    /// try EV2Session.requireSuccess(response, to: .changeKey)
    /// ```
    public static func requireSuccess(_ response: ResponseAPDU, to instruction: EV2Instruction) throws(EV2Error) {
        guard response.sw1 == 0x91 else { throw .unexpectedStatusWord(response.statusWord, instruction: instruction) }
        guard response.sw2 == 0x00 else {
            throw .cardStatus(DESFireStatus(code: response.sw2), instruction: instruction)
        }
    }

    /// `E(SesAuthENCKey, IVc, data ‖ 80 00…)`, padded and enciphered in one array.
    private func encipher(_ data: [UInt8]) throws(EV2Error) -> [UInt8] {
        guard !data.isEmpty else { return [] }
        let iv = try commandIV()
        var cryptogram: [UInt8] = []
        cryptogram.reserveCapacity((data.count / 16 + 1) * 16)
        cryptogram += data
        cryptogram.append(0x80)
        cryptogram += repeatElement(0, count: (16 - cryptogram.count % 16) % 16)
        let cipher = keys.encryptionCipher
        try ev2Crypto { () throws(CardCryptoError) in try cipher.encryptCBC(inPlace: &cryptogram, iv: iv) }
        return cryptogram
    }

    /// Deciphers `cryptogram` in place and cuts its padding off.
    private func decipher(
        _ cryptogram: inout [UInt8], for instruction: EV2Instruction,
        statusWord: StatusWord
    ) throws(EV2Error) {
        guard !cryptogram.isEmpty else { return }
        guard cryptogram.count % 16 == 0 else {
            throw .malformedResponse(
                instruction: instruction, statusWord: statusWord,
                reason: "enciphered answer of \(cryptogram.count) bytes is not whole blocks")
        }
        let (cipher, iv) = (keys.encryptionCipher, try responseIV(for: instruction))
        try ev2Crypto { () throws(CardCryptoError) in try cipher.decryptCBC(inPlace: &cryptogram, iv: iv) }
        // Method 2 padding is 1…16 bytes: 80, then zeros to the end of the last block.
        guard let marker = cryptogram.lastIndex(where: { $0 != 0 }), cryptogram[marker] == 0x80,
            cryptogram.count - marker <= 16
        else {
            throw .integrityCheckFailed(
                instruction: instruction, statusWord: statusWord,
                reason: "deciphered answer does not end in ISO 9797-1 method 2 padding")
        }
        cryptogram.removeLast(cryptogram.count - marker)
    }
}
