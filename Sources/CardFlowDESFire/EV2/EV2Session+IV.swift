import CardFlowCrypto

extension EV2Session {
    /// The label of the command IV.
    static let commandIVLabel: [UInt8] = [0xA5, 0x5A]
    /// The label of the answer IV.
    static let responseIVLabel: [UInt8] = [0x5A, 0xA5]

    /// IVc, the IV that enciphers the data of the next command in CommMode.Full (NT4H2421Gx §9.1.4):
    /// `E(SesAuthENCKey, A5 5A ‖ TI ‖ CmdCtr ‖ 00 × 8)`, CmdCtr least significant byte first.
    ///
    /// ```swift
    /// let iv = try session.commandIV()   // AN12196 Table 17: D2CB7277A17841A06654A48188C1F8F5
    /// ```
    public func commandIV() throws(EV2Error) -> [UInt8] {
        try iv(label: Self.commandIVLabel, counter: commandCounter)
    }

    /// IVr, the IV that deciphers the answer to the next command in CommMode.Full:
    /// `E(SesAuthENCKey, 5A A5 ‖ TI ‖ CmdCtr + 1 ‖ 00 × 8)`.
    ///
    /// ```swift
    /// let iv = try session.responseIV(for: .getCardUID)   // AN12196 Table 28: 7F6BB0B278EA054CBD238C5D9E9E342B
    /// ```
    ///
    /// - Throws: ``EV2Error/commandCounterExhausted(instruction:)`` when CmdCtr is `FFFF`.
    public func responseIV(for instruction: EV2Instruction) throws(EV2Error) -> [UInt8] {
        try iv(label: Self.responseIVLabel, counter: answerCounter(for: instruction))
    }

    private func iv(label: [UInt8], counter: UInt16) throws(EV2Error) -> [UInt8] {
        // label ‖ TI ‖ CmdCtr ‖ 00 × 8, enciphered in the same array.
        var block: [UInt8] = []
        block.reserveCapacity(16)
        block += label
        block += transactionIdentifier
        block.append(UInt8(truncatingIfNeeded: counter))
        block.append(UInt8(truncatingIfNeeded: counter >> 8))
        block += repeatElement(0, count: 8)
        let cipher = keys.encryptionCipher
        try ev2Crypto { () throws(CardCryptoError) in try cipher.encryptBlock(inPlace: &block) }
        return block
    }
}
