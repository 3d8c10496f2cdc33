import CardFlow
import Logging

/// Sends raw card frames through a reader's pass-through: wraps each frame in its route's APDU
/// (``StorageRawFrameCodec``), opens the transparent session first where the route needs one,
/// and unwraps the answer into the card's raw bytes with typed errors.
///
/// Frames and answers are logged at `trace`; a caller passes `redact` for frames that carry
/// secrets (an NTAG password), and only their first byte is logged then.
///
/// ```swift
/// let transport = StorageRawFrameTransport(channel: session, route: variant.rawFrameRoute)
/// let pages = try await transport.transceive([0x30, 0x04])   // READ page 4: 16 bytes
/// try await transport.endSession()
/// ```
public actor StorageRawFrameTransport {
    /// The channel to the card.
    public nonisolated let channel: any CardChannel
    /// The route the reader family uses.
    public nonisolated let route: StorageRawFrameRoute
    /// For the part 3 route, the timer DO sent before each frame (microseconds); nil leaves the
    /// reader's default.
    public nonisolated let timeoutMicroseconds: UInt32?
    private let logger: Logger
    /// Whether a transparent session is open (part 3 route).
    public private(set) var sessionOpen = false

    /// A transport on `channel`.
    ///
    /// - Parameters:
    ///   - channel: the card.
    ///   - route: the reader family's route (``StorageReaderVariant/rawFrameRoute``).
    ///   - timeoutMicroseconds: part 3 route only: the timer DO before each frame.
    ///   - logger: where frames go at `trace`.
    public init(
        channel: any CardChannel, route: StorageRawFrameRoute, timeoutMicroseconds: UInt32? = nil,
        logger: Logger = Logger(label: "cardflow.storagecards")
    ) {
        self.channel = channel
        self.route = route
        self.timeoutMicroseconds = timeoutMicroseconds
        self.logger = logger
    }

    /// Sends `frame` to the card and returns its raw answer (without CRC).
    ///
    /// - Parameters:
    ///   - frame: the card command, without CRC.
    ///   - redact: log only the frame's first byte (the frame carries a secret).
    ///   - code: the command code for logs and errors; nil: the frame's first byte (a FeliCa
    ///     frame starts with its length, so its client passes the code).
    /// - Throws: the ``StorageCardError``s of ``StorageRawFrameCodec/unwrap(_:route:command:)``,
    ///   ``StorageCardError/cardLost(_:operation:)`` when the card left the reader,
    ///   `CancellationError`, and the channel's own errors otherwise.
    public func transceive(_ frame: [UInt8], redact: Bool = false, command code: UInt8? = nil) async throws
        -> [UInt8]
    {
        let command = try StorageRawFrameCodec.wrap(frame, route: route, timeoutMicroseconds: timeoutMicroseconds)
        let first = code ?? frame.first ?? 0
        let response = try await exchange(command, frame: frame, first: first, redact: redact, label: "raw frame")
        let answer = try StorageRawFrameCodec.unwrap(response, route: route, command: first)
        logger.trace("raw answer", metadata: ["bytes": "\(answer.spacedHexString)"])
        return answer
    }

    /// Sends `frame`, a command the card answers with a 4-bit ACK, by the route's form for it
    /// (``StorageRawFrameCodec/wrapAcknowledged(_:route:timeoutMicroseconds:)``: InDataExchange
    /// on the PN532 route) and returns the ACK or the NAK.
    ///
    /// - Throws: the ``StorageCardError``s of
    ///   ``StorageRawFrameCodec/unwrapAcknowledged(_:route:command:)``, and those of
    ///   ``transceive(_:redact:command:)`` for the channel.
    public func transceiveAcknowledged(_ frame: [UInt8], redact: Bool = false, command code: UInt8? = nil) async throws
        -> StorageRawFrameAcknowledgement
    {
        let command = try StorageRawFrameCodec.wrapAcknowledged(
            frame, route: route, timeoutMicroseconds: timeoutMicroseconds)
        let first = code ?? frame.first ?? 0
        let response = try await exchange(
            command, frame: frame, first: first, redact: redact, label: "raw frame for an ACK")
        let answer = try StorageRawFrameCodec.unwrapAcknowledged(response, route: route, command: first)
        logger.trace("raw answer", metadata: ["answer": "\(answer)"])
        return answer
    }

    /// Opens the transparent session when the route needs one, traces `frame` (its first byte
    /// only when `redact`), and sends the wrapped `command`.
    private func exchange(
        _ command: CommandAPDU, frame: [UInt8], first: UInt8, redact: Bool, label: String
    ) async throws -> ResponseAPDU {
        if route.needsTransparentSession && !sessionOpen { try await startSession() }
        let shown = redact ? [first].spacedHexString + " <redacted>" : frame.spacedHexString
        logger.trace("\(label)", metadata: ["frame": "\(shown)", "route": "\(route.rawValue)"])
        return try await send(command, operation: "raw frame \([first].hexString)")
    }

    /// Opens the transparent session (`FF C2 00 00 02 81 00`); ``transceive(_:redact:command:)`` does
    /// it on its own. Routes without sessions do nothing.
    public func startSession() async throws {
        guard route.needsTransparentSession else { return }
        let command = try StorageRawFrameCodec.startTransparentSession()
        let response = try await send(command, operation: "start transparent session")
        try StorageRawFrameCodec.checkSessionAnswer(response, command: 0x81)
        sessionOpen = true
    }

    /// Ends the transparent session (`FF C2 00 00 02 82 00`) when one is open; call it before
    /// the session with the card ends.
    public func endSession() async throws {
        guard sessionOpen else { return }
        sessionOpen = false
        let command = try StorageRawFrameCodec.endTransparentSession()
        let response = try await send(command, operation: "end transparent session")
        try StorageRawFrameCodec.checkSessionAnswer(response, command: 0x82)
    }

    /// Cancellation is checked first and propagates as `CancellationError`; the card leaving
    /// becomes ``StorageCardError/cardLost(_:operation:)``; other channel errors pass unchanged.
    private func send(_ command: CommandAPDU, operation: String) async throws -> ResponseAPDU {
        try Task.checkCancellation()
        do {
            return try await channel.transmit(command)
        } catch let error where error.meansCardLost {
            sessionOpen = false
            throw StorageCardError.cardLost(error.cardLoss ?? .notResponding, operation: operation)
        }
    }
}
