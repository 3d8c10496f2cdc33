import CardFlow
import CardFlowCrypto

/// An NXP NTAG 424 DNA client over any ``/CardFlow/CardChannel``: ISO-wrapped native commands
/// with EV2 secure messaging (``EV2Session``), the three files of the NDEF application, SDM/SUN
/// configuration, keys and originality signature (NT4H2421Gx, AN12196).
///
/// It is an actor because the EV2 session (keys, transaction identifier, command counter) changes
/// with every command. Any error closes the session, as the tag does; authenticate again.
///
/// ```swift
/// let tag = NTAG424Client(channel: session)
/// try await tag.selectNDEFApplication()
/// try await tag.authenticate(keyNumber: 0, key: try DESFireKey(type: .aes, hex: "00000000000000000000000000000000"))
/// let uid = try await tag.getCardUID()
/// try await tag.changeFileSettings(.ndef, to: NTAG424FileSettings(commMode: .plain,
///     accessRights: DESFireAccessRights(rawValue: 0xE000),
///     sdm: NTAG424SDMSettings(metaReadKey: 2, fileReadKey: 1, piccDataOffset: 0x20, macInputOffset: 0x43, macOffset: 0x43)))
/// ```
public actor NTAG424Client {
    /// The channel the APDUs go through.
    public nonisolated let channel: any CardChannel
    /// The most data one ReadData or WriteData command carries; longer ones are split.
    public nonisolated let maxDataPerCommand: Int
    let randomBytes: @Sendable (Int) -> [UInt8]
    var session: EV2Session?
    var fileSettingsCache: [NTAG424File: NTAG424FileSettings] = [:]

    /// - Parameters:
    ///   - channel: where the APDUs go.
    ///   - maxDataPerCommand: bytes of file data per ReadData/WriteData (1…192; the tag's frame
    ///     holds a command's data, padding and MAC).
    ///   - randomBytes: the source of RndA (tests pass a fixed one).
    public init(
        channel: any CardChannel, maxDataPerCommand: Int = 128,
        randomBytes: @escaping @Sendable (Int) -> [UInt8] = { SecureRandom.bytes(count: $0) }
    ) {
        self.channel = channel
        self.maxDataPerCommand = max(1, min(maxDataPerCommand, 192))
        self.randomBytes = randomBytes
    }

    /// Whether an EV2 session is open.
    public var isAuthenticated: Bool { session != nil }
    /// The key the open session was authenticated with.
    public var authenticatedKeyNumber: UInt8? { session?.keyNumber }

    /// Forgets the session and cached file settings, as after the tag left the field.
    public func resetState() {
        session = nil
        fileSettingsCache = [:]
    }

    // MARK: - Selection

    /// ISOSelectFile of the NDEF application by its DF name `D2760000850101`
    /// (`00 A4 04 0C 07 D2760000850101 00`). Closes any session.
    public func selectNDEFApplication() async throws {
        session = nil
        fileSettingsCache = [:]
        let select = try CommandAPDU(
            cla: 0x00, ins: 0xA4, p1: 0x04, p2: 0x0C, data: NTAG424File.applicationName, le: 256)
        try requireISOSuccess(try await channel.transmit(select), instruction: "ISOSelectFile")
    }

    // MARK: - Authentication

    /// AuthenticateEV2First with AES key `keyNumber` (0–4): a new transaction, command counter 0.
    ///
    /// - Throws: ``NTAG424Error/secureMessaging(_:)`` with ``EV2Error/authenticationFailed(keyNumber:instruction:statusWord:)``
    ///   for a wrong key, or the card's status (`91 AE` wrong key, `91 40` no such key).
    public func authenticate(keyNumber: UInt8, key: DESFireKey) async throws {
        try checkKeyNumber(keyNumber)
        session = nil
        let part1 = try ev2 { () throws(EV2Error) in
            try EV2Authentication.first(keyNumber: keyNumber, key: key, rndA: randomBytes(16))
        }
        try await finishAuthentication(part1)
    }

    /// AuthenticateEV2NonFirst: another key inside the open transaction (TI and counter kept).
    public func authenticateNonFirst(keyNumber: UInt8, key: DESFireKey) async throws {
        try checkKeyNumber(keyNumber)
        guard let current = session else { throw NTAG424Error.notAuthenticated(instruction: .authenticateEV2NonFirst) }
        session = nil
        let part1 = try ev2 { () throws(EV2Error) in
            try EV2Authentication.nonFirst(keyNumber: keyNumber, key: key, rndA: randomBytes(16), continuing: current)
        }
        try await finishAuthentication(part1)
    }

    private func finishAuthentication(_ part1: EV2Authentication) async throws {
        let challenge = try await channel.transmit(part1.command)
        let part2 = try ev2 { () throws(EV2Error) in try part1.respond(to: challenge) }
        let answer = try await channel.transmit(part2.command)
        session = try ev2 { () throws(EV2Error) in try part2.finish(with: answer) }
    }

    // MARK: - Commands in the session's protection

    /// Sends `instruction` protected as `mode` (plain when no session is open) and returns the
    /// answer's data, its MAC checked and deciphered. Answers in `AF` frames are collected.
    func exchange(
        _ instruction: EV2Instruction, header: [UInt8] = [], data: [UInt8] = [],
        mode: DESFireCommMode, needsSession: Bool = false
    ) async throws -> [UInt8] {
        guard var current = session else {
            if needsSession { throw NTAG424Error.notAuthenticated(instruction: instruction) }
            let apdu = try ev2 { () throws(EV2Error) in try nativeCommandAPDU(instruction, header + data) }
            let response = try await transmitCollectingFrames(apdu, instruction: instruction)
            try ev2 { () throws(EV2Error) in try EV2Session.requireSuccess(response, to: instruction) }
            return response.data
        }
        // Any failure from here on: the tag has dropped the session (or it cannot be trusted).
        session = nil
        let apdu = try ev2 { () throws(EV2Error) in
            try current.command(instruction, header: header, data: data, mode: mode)
        }
        let response = try await transmitCollectingFrames(apdu, instruction: instruction)
        let answer = try ev2 { () throws(EV2Error) in try current.verifyResponse(response, to: instruction, mode: mode)
        }
        session = current
        return answer
    }

    /// Transmits `apdu`; while the tag answers `91 AF`, asks for the next frame (`90 AF 00 00 00`).
    /// Bounded: an answer longer than any NTAG 424 command's is refused.
    func transmitCollectingFrames(_ apdu: CommandAPDU, instruction: EV2Instruction) async throws -> ResponseAPDU {
        var response = try await channel.transmit(apdu)
        var data = response.data
        var frames = 1
        while response.sw1 == 0x91, response.sw2 == 0xAF {
            frames += 1
            guard frames <= Self.maximumAnswerFrames else {
                throw NTAG424Error.malformedResponse(
                    instruction: instruction,
                    reason: "more than \(Self.maximumAnswerFrames) answer frames")
            }
            let next = try ev2 { () throws(EV2Error) in try nativeCommandAPDU(.additionalFrame, []) }
            response = try await channel.transmit(next)
            data += response.data
        }
        guard frames > 1 else { return response }
        return ResponseAPDU(data: data, sw1: response.sw1, sw2: response.sw2)
    }

    /// GetVersion's three frames, with room to spare for longer answers.
    static let maximumAnswerFrames = 8

    func requireISOSuccess(_ response: ResponseAPDU, instruction: String) throws(NTAG424Error) {
        guard response.statusWord == StatusWord(0x9000) else {
            session = nil
            throw .isoStatus(response.statusWord, instruction: instruction)
        }
    }

    func checkKeyNumber(_ keyNumber: UInt8) throws(NTAG424Error) {
        guard keyNumber <= 4 else { throw .invalidArgument("NTAG 424 DNA has keys 0 to 4, not \(keyNumber)") }
    }

    /// Runs an EV2 step, turning its error into ``NTAG424Error/secureMessaging(_:)``.
    func ev2<T>(_ body: () throws(EV2Error) -> T) throws(NTAG424Error) -> T {
        do { return try body() } catch { throw .secureMessaging(error) }
    }
}
