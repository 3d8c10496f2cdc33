import CardFlow

/// The card's CoinManager (GP security domain, `80 CB 80 00` commands): PIN tries, root key
/// (seed), device label, versions. Every operation selects it first (S_C) and works in any
/// applet state.
///
/// ```swift
/// let manager = TONCoinManager(channel: session)
/// if try await !manager.rootKeyStatus() { try await manager.generateSeed(pin: .default) }
/// let tries = try await manager.remainingPinTries()
/// ```
public struct TONCoinManager: Sendable {
    public let channel: any CardChannel

    public init(channel: any CardChannel) {
        self.channel = channel
    }

    @discardableResult
    private func run(_ command: CommandAPDU) async throws -> [UInt8] {
        _ = try await TONExchange.send(TONCommands.selectCoinManager, over: channel)
        return try await TONExchange.send(command, over: channel)
    }

    /// GET_PIN_TLT: the maximum number of PIN tries (0...10). - Throws: 40038, 40039.
    public func maxPinTries() async throws -> Int {
        try Self.pinTries(try await run(TONCommands.getMaxPinTries))
    }

    /// GET_PIN_RTL: the PIN tries left (0...10). - Throws: 40038, 40039.
    public func remainingPinTries() async throws -> Int {
        try Self.pinTries(try await run(TONCommands.getRemainingPinTries))
    }

    static func pinTries(_ answer: [UInt8]) throws -> Int {
        guard let first = answer.first else { throw TONError.library(code: 40038) }
        guard first <= 10 else { throw TONError.library(code: 40039) }
        return Int(first)
    }

    /// GET_ROOT_KEY_STATUS: whether a seed exists (first byte `5A`). - Throws: 40040 on an empty answer.
    public func rootKeyStatus() async throws -> Bool {
        let answer = try await run(TONCommands.getRootKeyStatus)
        guard let first = answer.first else { throw TONError.library(code: 40040) }
        return first == 0x5A
    }

    /// The seed's message for ``rootKeyStatus()``: "generated" or "not generated".
    public static func rootKeyStatusMessage(_ generated: Bool) -> String { generated ? "generated" : "not generated" }

    /// GET_DEVICE_LABEL (32 bytes). - Throws: 40041.
    public func deviceLabel() async throws -> [UInt8] {
        let answer = try await run(TONCommands.getDeviceLabel)
        guard answer.count == 32 else { throw TONError.library(code: 40041) }
        return answer
    }

    /// GET_CSN. - Throws: 40042 on an empty answer.
    public func csn() async throws -> [UInt8] { try await nonEmpty(TONCommands.getCSN, code: 40042) }
    /// GET_SE_VERSION. - Throws: 40043 on an empty answer.
    public func seVersion() async throws -> [UInt8] { try await nonEmpty(TONCommands.getSEVersion, code: 40043) }
    /// GET_AVAILABLE_MEMORY. - Throws: 40044 on an empty answer.
    public func availableMemory() async throws -> [UInt8] {
        try await nonEmpty(TONCommands.getAvailableMemory, code: 40044)
    }
    /// GET_APPLET_LIST. - Throws: 40045 on an empty answer.
    public func appletList() async throws -> [UInt8] { try await nonEmpty(TONCommands.getAppletList, code: 40045) }

    private func nonEmpty(_ command: CommandAPDU, code: Int) async throws -> [UInt8] {
        let answer = try await run(command)
        guard !answer.isEmpty else { throw TONError.library(code: code) }
        return answer
    }

    /// RESET_WALLET: erases the seed, PIN back to 5555, tries back to the maximum.
    public func resetWallet() async throws { try await run(TONCommands.resetWallet) }

    /// GENERATE_SEED with the current PIN.
    public func generateSeed(pin: TONPin) async throws { try await run(TONCommands.generateSeed(pin: pin)) }

    /// CHANGE_PIN.
    public func changePin(old: TONPin, new: TONPin) async throws {
        try await run(TONCommands.changePin(old: old, new: new))
    }

    /// SET_DEVICE_LABEL (32 bytes). - Throws: 10006 for another length.
    public func setDeviceLabel(_ label: [UInt8]) async throws { try await run(try TONCommands.setDeviceLabel(label)) }
}
