import CardFlow

extension TONWallet {
    /// S_T, AI: the applet state (the seed's getTonAppletState).
    public func appletState() async throws -> TONAppletState {
        try await selectApplet()
        return try await readState()
    }

    /// S_T, AI, SN: the card's serial number.
    public func serialNumber() async throws -> TONSerialNumber {
        try await selectAndCheck(.getSerialNumber)
        return try await readSerialNumber()
    }

    /// S_T, AI, GS: the card's current sault (32 bytes).
    public func sault() async throws -> [UInt8] {
        try await selectAndCheck(.getSault)
        return try await readSault()
    }

    /// S_T, AI, SN and a comparison with `expected` (the seed's checkSerialNumberAnd… prefix).
    /// - Throws: 70000 when the card has another serial number.
    public func checkSerialNumber(_ expected: TONSerialNumber) async throws {
        guard try await serialNumber() == expected else { throw TONError.library(code: 70000) }
    }

    /// Stores the HMAC key derived from `activation` for `serialNumber` and makes it current
    /// (the seed's createKeyForHmac: recreates a lost key; no APDU).
    public func createKeyForHmac(_ activation: TONActivationData, serialNumber: TONSerialNumber) async throws {
        try await hmacKeys.createKey(from: activation, serialNumber: serialNumber)
    }

    /// The redaction that keeps PINs, the activation password (and its factory-set encrypted
    /// form and common secret), recovery data and keychain keys out of APDU traces (add it to a
    /// session with ``/CardFlow/CardSession/addRedaction(_:)``) and out of ``TONError/json``.
    public static let redaction = APDURedaction { command in
        switch (command.cla, command.ins) {
        case (TONCommands.cla, TONInstruction.verifyPin.rawValue):
            return .init(commandData: [0..<4])
        case (TONCommands.cla, TONInstruction.verifyPassword.rawValue),
            (TONCommands.cla, TONInstruction.setEncryptedPassword.rawValue),
            (TONCommands.cla, TONInstruction.setEncryptedCommonSecret.rawValue),
            (TONCommands.cla, TONInstruction.addRecoveryDataPart.rawValue),
            (TONCommands.cla, TONInstruction.addKeyChunk.rawValue),
            (TONCommands.cla, TONInstruction.changeKeyChunk.rawValue):
            return .init(commandData: APDURedaction.Ranges.wholeData)
        case (TONCommands.cla, TONInstruction.getKeyChunk.rawValue),
            (TONCommands.cla, TONInstruction.getRecoveryDataPart.rawValue):
            return .init(responseData: APDURedaction.Ranges.wholeData)
        case (0x80, 0xCB):
            // GENERATE_SEED and CHANGE_PIN carry PINs; the GET commands carry nothing secret.
            return command.data.count > 5 ? .init(commandData: APDURedaction.Ranges.wholeData) : .none
        default:
            return .none
        }
    }
}
