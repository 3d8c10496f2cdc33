import CardFlowCrypto

extension EV2Session {
    /// MACt of a command (NT4H2421Gx §9.1.9): the odd-indexed bytes (1, 3, …, 15) of
    /// `CMAC(SesAuthMACKey, Cmd ‖ CmdCtr ‖ TI ‖ CmdHeader ‖ CmdData)`, where `payload` is the data as
    /// it travels (enciphered in CommMode.Full). AN12196 writes the selection S14 ‖ S12 ‖ … ‖ S0,
    /// counting from the other end; CardFlowCrypto's `MACTruncation.ev2OddBytes(_:)` is the same bytes.
    ///
    /// ```swift
    /// // AN12196 Table 7: GetFileSettings of file 2 in CommMode.MAC, CmdCtr 0000, TI 7A21085E
    /// try session.commandMAC(.getFileSettings, header: [0x02])   // 6597A457C8CD442C
    /// ```
    public func commandMAC(_ instruction: EV2Instruction, header: [UInt8] = [], payload: [UInt8] = []) throws(EV2Error)
        -> [UInt8]
    {
        try truncatedMAC(first: instruction.rawValue, counter: commandCounter, header, payload)
    }

    /// MACt of an answer: `CMAC(SesAuthMACKey, RC ‖ CmdCtr + 1 ‖ TI ‖ RespData)` truncated as for
    /// commands, with the return code (`00` for success) in front and no instruction byte.
    ///
    /// ```swift
    /// // AN12196 Table 18 step 19: the answer to ChangeFileSettings at CmdCtr 0100 carries no data
    /// try session.responseMAC(for: .changeFileSettings)   // 57BFF87B1241E93D
    /// ```
    ///
    /// - Throws: ``EV2Error/commandCounterExhausted(instruction:)`` when CmdCtr is `FFFF`.
    public func responseMAC(for instruction: EV2Instruction, returnCode: UInt8 = 0x00, payload: [UInt8] = [])
        throws(EV2Error) -> [UInt8]
    {
        let counter = try answerCounter(for: instruction)
        return try truncatedMAC(first: returnCode, counter: counter, [], payload)
    }

    /// MACt of `first ‖ counter ‖ TI ‖ header ‖ payload`, the input built in one array.
    private func truncatedMAC(first: UInt8, counter: UInt16, _ header: [UInt8], _ payload: [UInt8]) throws(EV2Error)
        -> [UInt8]
    {
        var message: [UInt8] = []
        message.reserveCapacity(3 + transactionIdentifier.count + header.count + payload.count)
        message.append(first)
        message.append(UInt8(truncatingIfNeeded: counter))
        message.append(UInt8(truncatingIfNeeded: counter >> 8))
        message += transactionIdentifier
        message += header
        message += payload
        let cipher = keys.macCipher
        return MACTruncation.ev2OddBytes(
            try ev2Crypto { () throws(CardCryptoError) in try BlockCipherCMAC.mac(message, cipher: cipher) })
    }
}
