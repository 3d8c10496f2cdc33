import CardFlowCrypto

/// How an EV2 command or answer travels (CommMode.Plain, CommMode.MAC, CommMode.Full).
enum EV2CardProtection: Sendable, Hashable {
    /// Data as is (the command counter still moves).
    case plain
    /// Data ‖ MACt.
    case mac
    /// E(SesAuthENCKey, IV, data ‖ 80 00…) ‖ MACt.
    case full
}

/// Why the card refuses an EV2-protected command; each card model answers its own status.
enum EV2CardFailure: Error, Sendable {
    /// Too short for its MAC, or a cryptogram that is not whole blocks.
    case length
    /// A MAC that does not verify, or padding that is wrong.
    case integrity
}

/// The card side of the EV2 secure channel shared by the DESFire EV2 and NTAG 424 DNA models
/// (NT4H2421Gx §9.1; AN12196 §4; AN12343): session keys, TI, command counter, IVs, truncated
/// MACs, and the protection of commands and answers.
struct EV2CardSession: Hashable, Sendable {
    /// The key the session was opened with.
    var keyNumber: UInt8
    /// SesAuthENCKey.
    var encryptionKey: [UInt8]
    /// SesAuthMACKey.
    var macKey: [UInt8]
    /// Transaction identifier (4 bytes).
    var transactionIdentifier: [UInt8]
    /// CmdCtr, incremented after each command of the session.
    var commandCounter: UInt16

    /// SV1/SV2 (label `A5 5A` or `5A A5`): label ‖ 00 01 00 80 ‖ RndA[0..1] ‖ (RndA[2..7] ⊕
    /// RndB[0..5]) ‖ RndB[6..15] ‖ RndA[8..15].
    static func sessionVector(label: [UInt8], rndA: [UInt8], rndB: [UInt8]) -> [UInt8] {
        var vector = label + [0x00, 0x01, 0x00, 0x80] + rndA[0..<2]
        vector += (0..<6).map { rndA[2 + $0] ^ rndB[$0] }
        return vector + rndB[6..<16] + rndA[8..<16]
    }

    /// Session keys from the authentication key and both random numbers.
    static func keys(key: [UInt8], rndA: [UInt8], rndB: [UInt8]) throws(CardCryptoError) -> (enc: [UInt8], mac: [UInt8])
    {
        (
            try AESCMAC.mac(sessionVector(label: [0xA5, 0x5A], rndA: rndA, rndB: rndB), key: key),
            try AESCMAC.mac(sessionVector(label: [0x5A, 0xA5], rndA: rndA, rndB: rndB), key: key)
        )
    }

    /// Appends CmdCtr (LSB first) to `bytes` without an array of its own.
    private func appendCounter(to bytes: inout [UInt8]) {
        bytes.append(UInt8(truncatingIfNeeded: commandCounter))
        bytes.append(UInt8(truncatingIfNeeded: commandCounter >> 8))
    }

    /// IVc = E(SesAuthENCKey, A5 5A ‖ TI ‖ CmdCtr ‖ 0⁸) at the current counter.
    func commandIV() throws(CardCryptoError) -> [UInt8] {
        try iv(0xA5, 0x5A, cipher: AES128Cipher(key: encryptionKey))
    }

    /// IVr = E(SesAuthENCKey, 5A A5 ‖ TI ‖ CmdCtr ‖ 0⁸), taken after the counter moved on.
    func responseIV() throws(CardCryptoError) -> [UInt8] {
        try iv(0x5A, 0xA5, cipher: AES128Cipher(key: encryptionKey))
    }

    /// E(`cipher`, label ‖ TI ‖ CmdCtr ‖ 0⁸), built and enciphered in one array.
    private func iv(_ label0: UInt8, _ label1: UInt8, cipher: AES128Cipher) throws(CardCryptoError) -> [UInt8] {
        var block: [UInt8] = []
        block.reserveCapacity(16)
        block.append(label0)
        block.append(label1)
        block += transactionIdentifier
        appendCounter(to: &block)
        block += repeatElement(0, count: 16 - block.count)
        try cipher.encryptBlock(inPlace: &block)
        return block
    }

    /// MACt: bytes 1, 3, …, 15 of the CMAC under SesAuthMACKey.
    func truncatedMAC(_ message: [UInt8]) throws(CardCryptoError) -> [UInt8] {
        MACTruncation.ev2OddBytes(try AESCMAC.mac(message, key: macKey))
    }

    /// The MAC a command carries: Cmd ‖ CmdCtr ‖ TI ‖ header ‖ data.
    func commandMAC(ins: UInt8, _ body: [UInt8]) throws(CardCryptoError) -> [UInt8] {
        try truncatedMAC(first: ins, body[...])
    }

    /// The MAC of an answer (after the counter moved on): RC 00 ‖ CmdCtr ‖ TI ‖ data.
    func responseMAC(_ body: [UInt8]) throws(CardCryptoError) -> [UInt8] {
        try truncatedMAC(first: 0x00, body[...])
    }

    /// MACt of `first ‖ CmdCtr ‖ TI ‖ body`, the input built in one array.
    private func truncatedMAC(first: UInt8, _ body: ArraySlice<UInt8>) throws(CardCryptoError) -> [UInt8] {
        var message: [UInt8] = []
        message.reserveCapacity(3 + transactionIdentifier.count + body.count)
        message.append(first)
        appendCounter(to: &message)
        message += transactionIdentifier
        message += body
        return try truncatedMAC(message)
    }

    /// The length on the wire of `plainLength` data bytes sent in `protection`.
    static func protectedLength(_ plainLength: Int, _ protection: EV2CardProtection) -> Int {
        switch protection {
        case .plain: plainLength
        case .mac: plainLength + 8
        // Method 2 padding adds 1…16 bytes; a command without data carries the MACt alone.
        case .full: (plainLength == 0 ? 0 : (plainLength / 16 + 1) * 16) + 8
        }
    }

    /// Checks and strips the protection of a command: `header` (after the instruction byte) stays
    /// in clear, the rest is data, data ‖ MACt, or E(data ‖ padding) ‖ MACt. The counter does not
    /// move; ``wrapResponse(_:protection:)`` moves it.
    func unwrapCommand(ins: UInt8, _ data: [UInt8], headerLength: Int, protection: EV2CardProtection)
        throws(EV2CardFailure) -> (header: [UInt8], payload: [UInt8])
    {
        guard data.count >= headerLength else { throw .length }
        let header = Array(data[..<headerLength])
        guard protection != .plain else { return (header, Array(data[headerLength...])) }
        guard data.count >= headerLength + 8 else { throw .length }
        // The MAC over everything before it, read in place; the payload then copied once (and
        // deciphered in that copy).
        let macStart = data.count - 8
        guard let expected = try? truncatedMAC(first: ins, data[..<macStart]), expected.elementsEqual(data[macStart...])
        else { throw .integrity }
        var payload = Array(data[headerLength..<macStart])
        guard protection == .full, !payload.isEmpty else { return (header, payload) }
        guard payload.count % 16 == 0 else { throw .integrity }
        do {
            let cipher = try AES128Cipher(key: encryptionKey)
            try cipher.decryptCBC(inPlace: &payload, iv: try iv(0xA5, 0x5A, cipher: cipher))
        } catch {
            throw .integrity
        }
        // Method 2 padding: 80, then zeros to the end of the last block (1…16 bytes).
        guard let marker = payload.lastIndex(where: { $0 != 0 }), payload[marker] == 0x80, payload.count - marker <= 16
        else { throw .integrity }
        payload.removeLast(payload.count - marker)
        return (header, payload)
    }

    /// Protects a successful answer and moves the command counter on (every command of a session
    /// counts, plain ones too).
    mutating func wrapResponse(_ data: [UInt8], protection: EV2CardProtection) throws(CardCryptoError) -> [UInt8] {
        commandCounter &+= 1
        switch protection {
        case .plain:
            return data
        case .mac:
            return data + (try responseMAC(data))
        case .full:
            // E(data ‖ 80 00…) built and enciphered in one array, room left for the MACt and the
            // status word the card model appends.
            var body: [UInt8] = []
            if !data.isEmpty {
                let cipher = try AES128Cipher(key: encryptionKey)
                body.reserveCapacity((data.count / 16 + 1) * 16 + 8 + 2)
                body += data
                body.append(0x80)
                body += repeatElement(0, count: (16 - body.count % 16) % 16)
                try cipher.encryptCBC(inPlace: &body, iv: try iv(0x5A, 0xA5, cipher: cipher))
            }
            let mac = try responseMAC(body)
            body += mac
            return body
        }
    }
}
