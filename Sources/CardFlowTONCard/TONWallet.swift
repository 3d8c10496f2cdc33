import CardFlow

/// A client of the TON Labs security card: the TonWalletApplet (activation, Ed25519, keychain,
/// recovery data) and, through ``coinManager``, the CoinManager (PIN, seed, device label).
///
/// Every operation sends exactly the APDUs the applet expects (exact Le), checks the applet
/// state first the way the applet enforces it (section 2.2), and throws ``TONError`` for a status
/// word other than `9000` or a malformed answer. Protected operations read the card's serial
/// number, pick that card's HMAC key from ``hmacKeys`` and sign `payload | sault`.
///
/// ```swift
/// let keys = TONHmacKeyStore(store: try FileKeyStore())
/// try await reader.withSession { session in
///     await session.addRedaction(TONWallet.redaction)
///     let wallet = TONWallet(channel: session, hmacKeys: keys)
///     let state = try await wallet.appletState()
///     try await wallet.verifyPin(TONPin("5555"))
///     let signature = try await wallet.signForDefaultPath([0x00, 0x01, 0x02])
/// }
/// ```
public struct TONWallet: Sendable {
    /// Where the APDUs go (usually a ``/CardFlow/CardSession``).
    public let channel: any CardChannel
    /// The per-card HMAC keys and the current serial number.
    public let hmacKeys: TONHmacKeyStore

    public init(channel: any CardChannel, hmacKeys: TONHmacKeyStore) {
        self.channel = channel
        self.hmacKeys = hmacKeys
    }

    /// The CoinManager of the same card.
    public var coinManager: TONCoinManager { TONCoinManager(channel: channel) }

    // MARK: - Exchange

    /// Sends `command`; any status word but `9000` becomes ``TONError/card(status:instruction:command:)``.
    @discardableResult
    func exchange(_ command: CommandAPDU) async throws -> [UInt8] {
        try await TONExchange.send(command, over: channel)
    }

    /// S_T.
    public func selectApplet() async throws {
        try await exchange(TONCommands.selectApplet)
    }

    /// AI: the applet state byte. - Throws: 40001 (not 1 byte), 40002 (unknown state).
    func readState() async throws -> TONAppletState {
        let answer = try await exchange(TONCommands.getAppInfo)
        guard answer.count == 1 else { throw TONError.library(code: 40001, detail: "\(answer.count).") }
        guard let state = TONAppletState(rawValue: answer[0]) else {
            throw TONError.library(code: 40002, detail: [answer[0]].hexString)
        }
        return state
    }

    /// AI, then the client-side state check for `instruction` (50000 when the applet would refuse it).
    @discardableResult
    func checkState(for instruction: TONInstruction) async throws -> TONAppletState {
        let state = try await readState()
        guard state.acceptedInstructions.contains(instruction) else {
            throw TONError.library(code: 50000, detail: " : \(instruction.name) in \(state.message)")
        }
        return state
    }

    /// S_T, AI and the state check for `instruction`.
    @discardableResult
    func selectAndCheck(_ instruction: TONInstruction) async throws -> TONAppletState {
        try await selectApplet()
        return try await checkState(for: instruction)
    }

    /// S_T, AI, then the state must be `expected` (50001/50002/50003 otherwise).
    func selectAndRequire(_ expected: TONAppletState) async throws {
        try await selectApplet()
        let state = try await readState()
        guard state == expected else {
            let code =
                switch expected {
                case .waitingForAuthentication: 50001
                case .deletingKey: 50003
                default: 50002
                }
            throw TONError.library(code: code, detail: state.message)
        }
    }

    /// SN: reads the serial number and makes its HMAC key current (the seed's reselectKeyForHmac).
    /// - Throws: 60000 when no key is stored for the card.
    @discardableResult
    func reselectKey() async throws -> TONSerialNumber {
        let serial = try await readSerialNumber()
        try await hmacKeys.selectKey(serialNumber: serial)
        return serial
    }

    /// SN without selection.
    func readSerialNumber() async throws -> TONSerialNumber {
        try TONSerialNumber(wireBytes: try await exchange(TONCommands.getSerialNumber))
    }

    /// GS. - Throws: 40000 unless 32 bytes.
    func readSault() async throws -> [UInt8] {
        let sault = try await exchange(TONCommands.getSault)
        guard sault.count == 32 else { throw TONError.library(code: 40000, detail: "\(sault.count).") }
        return sault
    }

    /// GS, then the protected command `instruction` signed with the current HMAC key.
    @discardableResult
    func sendProtected(_ instruction: TONInstruction, p1: UInt8 = 0, payload: [UInt8] = [], le: Int? = nil) async throws
        -> [UInt8]
    {
        let key = try await hmacKeys.currentKey()
        let sault = try await readSault()
        let command = try TONProtectedCommand.make(
            instruction, p1: p1, payload: payload, sault: sault, key: key, le: le)
        return try await exchange(command)
    }

    /// Reports progress (0...1) when the channel is a session run by a flow.
    func reportProgress(_ fraction: Double) async {
        if let session = channel as? CardSession { await session.reportProgress(fraction) }
    }
}
