import CardFlow
import CardFlowCrypto

/// A MIFARE DESFire EV1 client over any ``/CardFlow/CardChannel`` (a ``/CardFlow/CardSession`` usually).
///
/// Every native command is ISO-wrapped (`90 cmd 00 00 [Lc data] 00`); long commands and answers
/// are chained with `AF` frames. Once authenticated, secure messaging (EV1 CMAC/IV chaining and
/// CRC32 encryption, or legacy CRC16 / 4-byte MAC after 0x0A) is applied to every command and
/// checked on every answer. File commands pick their comm mode from the file's settings
/// (GetFileSettings, cached per application) unless the caller passes one.
///
/// It is an actor because the session state (session key, IV, selected application, cached file
/// settings) changes with every command and is shared by flow steps and reconnect restorations.
/// Commands on one client run one at a time; do not issue them concurrently.
///
/// ```swift
/// let client = DESFireClient(channel: session)
/// try await client.selectApplication(try DESFireApplicationID(hex: "010203"))
/// try await client.authenticate(keyNumber: 0, key: try DESFireKey(type: .aes, hex: "00112233445566778899AABBCCDDEEFF"))
/// let data = try await client.readData(file: 1, offset: 0, length: 32)
/// ```
public actor DESFireClient {
    /// The channel the APDUs go through.
    public nonisolated let channel: any CardChannel
    let randomBytes: @Sendable (Int) -> [UInt8]
    var session: DESFireSecureSession?
    /// The application selected last (the PICC level after creation).
    public internal(set) var selectedApplication: DESFireApplicationID = .picc
    var fileSettingsCache: [UInt8: DESFireFileSettings] = [:]
    /// The last successful authentication, replayed after a reconnect.
    var lastAuthentication: (keyNumber: UInt8, key: DESFireKey, method: DESFireAuthenticationMethod)?
    /// The Transaction MAC Input of the running transaction, recorded while the selected
    /// application is known to have a TransactionMAC file (`nil` otherwise).
    var transactionMACInput: DESFireTransactionMACInput?
    /// The selected application's TransactionMAC file, once known.
    var transactionMACFile: UInt8?
    /// Largest data field of one command frame (`Lc`); longer native messages are AF-chained.
    public let maxFrameDataLength: Int

    /// - Parameters:
    ///   - channel: where the APDUs go.
    ///   - maxFrameDataLength: bytes per command frame after the command byte (54 fits every EV1).
    ///   - randomBytes: the source of RndA (tests pass a fixed one).
    public init(
        channel: any CardChannel, maxFrameDataLength: Int = 54,
        randomBytes: @escaping @Sendable (Int) -> [UInt8] = { SecureRandom.bytes(count: $0) }
    ) {
        self.channel = channel
        self.maxFrameDataLength = max(1, min(maxFrameDataLength, 250))
        self.randomBytes = randomBytes
    }

    /// Whether a session is open.
    public var isAuthenticated: Bool { session != nil }
    /// The key number of the open session.
    public var authenticatedKeyNumber: UInt8? { session?.keyNumber }

    /// Forgets the session and the cached state, as after a card reset.
    public func resetState() {
        session = nil
        selectedApplication = .picc
        fileSettingsCache = [:]
        transactionMACInput = nil
        transactionMACFile = nil
    }

    // MARK: - Frames

    /// One ISO-wrapped frame: returns the data and the DESFire status byte.
    func transmitFrame(_ ins: UInt8, _ data: [UInt8], command: DESFireCommand) async throws -> (
        data: [UInt8], status: UInt8
    ) {
        let apdu: CommandAPDU
        do { apdu = try CommandAPDU(cla: 0x90, ins: ins, p1: 0, p2: 0, data: data, le: 256) } catch {
            throw DESFireError.invalidArgument("frame too long: \(data.count) bytes")
        }
        let response = try await channel.transmit(apdu)
        guard response.sw1 == 0x91 else {
            session = nil
            throw DESFireError.unexpectedStatusWord(response.statusWord, command: command)
        }
        return (response.data, response.sw2)
    }

    /// Sends a native message (command byte + body) with command-direction chaining and collects an
    /// AF-chained answer. An error status drops the session and throws.
    func transceive(_ command: DESFireCommand, _ body: [UInt8]) async throws -> [UInt8] {
        var answer = try await sendCommandFrames(command, body)
        // A one-frame answer is returned as received; further frames are appended to it.
        var collected = answer.data
        var frames = 1
        while answer.status == 0xAF {
            try checkFrameCount(frames, command)
            answer = try await transmitFrame(0xAF, [], command: command)
            collected += answer.data
            frames += 1
        }
        try fail(answer.status, command)
        return collected
    }

    /// As ``transceive(_:_:)``, keeping the answer's frames apart (GetDFNames sends one entry per frame).
    func transceiveFrames(_ command: DESFireCommand, _ body: [UInt8]) async throws -> [[UInt8]] {
        var answer = try await sendCommandFrames(command, body)
        var collected = [answer.data]
        while answer.status == 0xAF {
            try checkFrameCount(collected.count, command)
            answer = try await transmitFrame(0xAF, [], command: command)
            collected.append(answer.data)
        }
        try fail(answer.status, command)
        return collected
    }

    /// Sends `command ‖ body` in frames of at most ``maxFrameDataLength`` bytes (a body that fits
    /// goes out as it is) and returns the answer to the last one.
    private func sendCommandFrames(_ command: DESFireCommand, _ body: [UInt8]) async throws -> (
        data: [UInt8], status: UInt8
    ) {
        let count = max(1, (body.count + maxFrameDataLength - 1) / maxFrameDataLength)
        guard count > 1 else { return try await transmitFrame(command.rawValue, body, command: command) }
        var answer: (data: [UInt8], status: UInt8) = ([], 0)
        for index in 0..<count {
            let start = index * maxFrameDataLength
            let chunk = Array(body[start..<min(start + maxFrameDataLength, body.count)])
            answer = try await transmitFrame(index == 0 ? command.rawValue : 0xAF, chunk, command: command)
            guard index < count - 1 else { break }
            guard answer.status == 0xAF else {
                try fail(answer.status, command)
                session = nil
                throw DESFireError.malformedResponse(
                    command: command, reason: "card ended the command after frame \(index + 1) of \(count)")
            }
            guard answer.data.isEmpty else {
                session = nil
                throw DESFireError.malformedResponse(
                    command: command, reason: "data in the middle of a chained command")
            }
        }
        return answer
    }

    /// Drops the session and throws once an answer has run to 256 frames.
    private func checkFrameCount(_ frames: Int, _ command: DESFireCommand) throws(DESFireError) {
        guard frames < 256 else {
            session = nil
            throw .malformedResponse(command: command, reason: "more than 256 answer frames")
        }
    }

    /// Throws (and drops the session) for any status but `00`.
    func fail(_ status: UInt8, _ command: DESFireCommand) throws(DESFireError) {
        guard status != 0x00 else { return }
        session = nil
        // The card aborts the transaction on an error, and with it the Transaction MAC.
        if transactionMACInput != nil { transactionMACInput = DESFireTransactionMACInput() }
        throw .cardStatus(DESFireStatus(code: status), command: command)
    }
}
