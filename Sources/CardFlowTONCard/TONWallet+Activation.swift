import CardFlow

extension TONWallet {
    /// S_T, AI, 95: SHA256 of the encrypted common secret. - Throws: 40009 unless 32 bytes.
    public func hashOfEncryptedCommonSecret() async throws -> [UInt8] {
        try await selectAndCheck(.getHashOfEncryptedCommonSecret)
        return try await readHashOfEncryptedCommonSecret()
    }

    /// S_T, AI, 93: SHA256 of the encrypted password. - Throws: 40008 unless 32 bytes.
    public func hashOfEncryptedPassword() async throws -> [UInt8] {
        try await selectAndCheck(.getHashOfEncryptedPassword)
        return try await readHashOfEncryptedPassword()
    }

    /// S_T, AI, 95, 93, SN (the seed's getHashes).
    public func hashes() async throws -> TONActivationHashes {
        try await selectAndCheck(.getHashOfEncryptedCommonSecret)
        return try await readHashes()
    }

    /// S_T, AI, 92: VERIFY_PASSWORD with P1 | IV.
    public func verifyPassword(_ activation: TONActivationData) async throws {
        try await selectAndCheck(.verifyPassword)
        try await exchange(try TONCommands.verifyPassword(activation))
    }

    /// The seed's generateSeedAndGetHashes: S_C, GET_ROOT_KEY_STATUS, when there is no seed
    /// RESET_WALLET and GENERATE_SEED(5555); S_T, AI (must be `27`, else 50001), 95, 93, SN.
    public func generateSeedAndGetHashes() async throws -> TONActivationHashes {
        if try await !coinManager.rootKeyStatus() {
            try await coinManager.resetWallet()
            try await coinManager.generateSeed(pin: .default)
        }
        try await selectAndRequire(.waitingForAuthentication)
        return try await readHashes()
    }

    /// The seed's turnOnWallet in one session: S_C, RESET_WALLET, GENERATE_SEED(5555); S_T, AI
    /// (`27`, else 50001); 95 and 93 compared with the hashes derived from `activation` (40010,
    /// 40011); VERIFY_PASSWORD; S_C, CHANGE_PIN(5555 → `pin`); S_T, AI, SN; the HMAC key stored
    /// for the serial number; AI (`17`, else 50002).
    ///
    /// For the resumable, step-by-step version see ``TONActivation/flow(activation:pin:hmacKeys:)``.
    public func turnOnWallet(pin: TONPin = .default, activation: TONActivationData) async throws -> TONAppletState {
        try await coinManager.resetWallet()
        try await coinManager.generateSeed(pin: .default)
        try await selectAndRequire(.waitingForAuthentication)
        try await checkActivationHashes(activation)
        try await exchange(try TONCommands.verifyPassword(activation))
        try await coinManager.changePin(old: .default, new: pin)
        try await selectApplet()
        _ = try await readState()
        let serial = try await readSerialNumber()
        try await hmacKeys.createKey(from: activation, serialNumber: serial)
        let state = try await readState()
        guard state == .personalized else { throw TONError.library(code: 50002, detail: state.message) }
        return state
    }

    /// 95 and 93 compared with `activation`'s H3 and H2 (applet selected, state 27).
    func checkActivationHashes(_ activation: TONActivationData) async throws {
        guard try await readHashOfEncryptedCommonSecret() == activation.hashOfEncryptedCommonSecret else {
            throw TONError.library(code: 40010)
        }
        guard try await readHashOfEncryptedPassword() == activation.hashOfEncryptedPassword else {
            throw TONError.library(code: 40011)
        }
    }

    func readHashes() async throws -> TONActivationHashes {
        let ecs = try await readHashOfEncryptedCommonSecret()
        let ep = try await readHashOfEncryptedPassword()
        return TONActivationHashes(
            encryptedCommonSecretHash: ecs, encryptedPasswordHash: ep, serialNumber: try await readSerialNumber())
    }

    func readHashOfEncryptedCommonSecret() async throws -> [UInt8] {
        let hash = try await exchange(TONCommands.getHashOfEncryptedCommonSecret)
        guard hash.count == 32 else { throw TONError.library(code: 40009) }
        return hash
    }

    func readHashOfEncryptedPassword() async throws -> [UInt8] {
        let hash = try await exchange(TONCommands.getHashOfEncryptedPassword)
        guard hash.count == 32 else { throw TONError.library(code: 40008) }
        return hash
    }
}
