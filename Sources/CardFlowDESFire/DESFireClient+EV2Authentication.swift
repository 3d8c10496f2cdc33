import CardFlow
import CardFlowCrypto

extension DESFireClient {
    /// AuthenticateEV2First (`71`) with AES key `keyNumber` of the selected level: a new transaction
    /// (fresh TI, command counter 0). Every later command runs under EV2 secure messaging until the
    /// session ends. The same as `authenticate(keyNumber:key:method: .ev2)`.
    ///
    /// - Throws: ``DESFireError/cardStatus(_:command:)`` (`40` no such key, `AE` wrong key or a key
    ///   that is not AES on the card), ``DESFireError/authenticationFailed(keyNumber:reason:)`` when the
    ///   card's RndA' is wrong, ``DESFireError/invalidArgument(_:)`` for a key that is not AES.
    public func authenticateEV2First(keyNumber: UInt8, key: DESFireKey) async throws {
        try checkAuthenticationKeyNumber(keyNumber)
        session = nil
        let part1 = try ev2(.authenticateEV2First) { () throws(EV2Error) in
            try EV2Authentication.first(keyNumber: keyNumber, key: key, rndA: randomBytes(16))
        }
        try await finishEV2Authentication(part1, command: .authenticateEV2First)
        lastAuthentication = (keyNumber, key, .ev2)
    }

    /// AuthenticateEV2NonFirst (`77`): another AES key inside the open EV2 transaction (TI and
    /// command counter kept, new session keys).
    ///
    /// - Throws: ``DESFireError/notAuthenticated(command:)`` without an open EV2 session; otherwise
    ///   as ``authenticateEV2First(keyNumber:key:)``.
    public func authenticateEV2NonFirst(keyNumber: UInt8, key: DESFireKey) async throws {
        try checkAuthenticationKeyNumber(keyNumber)
        guard let current = session?.ev2 else { throw DESFireError.notAuthenticated(command: .authenticateEV2NonFirst) }
        session = nil
        let part1 = try ev2(.authenticateEV2NonFirst) { () throws(EV2Error) in
            try EV2Authentication.nonFirst(keyNumber: keyNumber, key: key, rndA: randomBytes(16), continuing: current)
        }
        try await finishEV2Authentication(part1, command: .authenticateEV2NonFirst)
        lastAuthentication = (keyNumber, key, .ev2)
    }

    /// The open session's EV2 state (TI and command counter), or `nil` outside an EV2 session.
    public var ev2Session: EV2Session? { session?.ev2 }

    private func finishEV2Authentication(_ part1: EV2Authentication, command: DESFireCommand) async throws {
        let challenge = try await channel.transmit(part1.command)
        let part2 = try ev2(command) { () throws(EV2Error) in try part1.respond(to: challenge) }
        let answer = try await channel.transmit(part2.command)
        let opened = try ev2(command) { () throws(EV2Error) in try part2.finish(with: answer) }
        installEV2Session(opened)
    }

    /// Makes `ev2Session` the client's secure session.
    func installEV2Session(_ ev2Session: EV2Session) {
        // The EV1 fields are unused in an EV2 session; the cipher is keyed with SesAuthENCKey.
        guard let cipher = try? AES128Cipher(key: ev2Session.keys.encryption) else { return }
        session = DESFireSecureSession(
            keyNumber: ev2Session.keyNumber, keyType: .aes, flavour: .ev2, cipher: cipher,
            iv: [UInt8](repeating: 0, count: 16), ev2: ev2Session)
    }

    func checkAuthenticationKeyNumber(_ keyNumber: UInt8) throws(DESFireError) {
        guard keyNumber <= 0x0D else { throw .invalidArgument("key number \(keyNumber) is outside 0...13") }
    }

    /// Runs an EV2 step of `command`, turning its error into the matching ``DESFireError``.
    func ev2<T>(_ command: DESFireCommand, _ body: () throws(EV2Error) -> T) throws(DESFireError) -> T {
        do { return try body() } catch { throw DESFireError(error, command: command) }
    }
}

extension DESFireError {
    /// The DESFire client's form of an EV2 secure-channel error in `command`.
    init(_ error: EV2Error, command: DESFireCommand) {
        switch error {
        case .cardStatus(let status, _): self = .cardStatus(status, command: command)
        case .unexpectedStatusWord(let word, _): self = .unexpectedStatusWord(word, command: command)
        case .malformedResponse(_, _, let reason): self = .malformedResponse(command: command, reason: reason)
        case .integrityCheckFailed(_, _, let reason): self = .integrityCheckFailed(command: command, reason: reason)
        case .authenticationFailed(let keyNumber, _, _):
            self = .authenticationFailed(keyNumber: keyNumber, reason: "the card's RndA' does not match")
        case .commandCounterExhausted: self = .commandCounterExhausted(command: command)
        case .invalidArgument(let reason): self = .invalidArgument(reason)
        case .crypto(let error): self = .crypto(error)
        }
    }
}
