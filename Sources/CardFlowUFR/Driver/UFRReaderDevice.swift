import CardFlow
import Logging

/// A uFR reader and the card on it, over a ``UFRConnection``: presence by GET_CARD_ID_EX,
/// a card session by SET_ISO14443_4_MODE, APDUs by APDU_TRANSCEIVE, S_BLOCK_DESELECT to end it
/// (ufr.md §7.2). ``UFRReaderDriver`` makes it a CardFlow ``/CardFlow/ReaderDriver``.
///
/// - The reader gives no ATR: power-on answers the PC/SC part 3 ATR of the card's Digital Logic
///   type (``UFRCardType/atr``).
/// - GET DATA for the UID (`FF CA 00 00 xx`) is answered from GET_CARD_ID_EX's UID, as a PC/SC
///   reader would; other `FF` pseudo-APDUs get `6A 81` (not supported).
/// - A session stops the reader's RF polling, so presence is not asked while one is open.
/// - An APDU that fails with NO_CARD or a card-side error, or goes unanswered, ends the session
///   (deselect sent, its result ignored) and is a card loss (``UFRError/cardLoss``).
///
/// ```swift
/// let device = UFRReaderDevice(connection: connection, logger: logger)
/// let atr = try await device.powerOn()
/// let answer = try await device.transmit([0x90, 0x60, 0x00, 0x00, 0x00])
/// try await device.powerOff()
/// ```
public actor UFRReaderDevice {
    /// The protocol connection.
    public nonisolated let connection: UFRConnection
    /// The card's own time per APDU, as APDU_TRANSCEIVE's Par1 (milliseconds, at most 255).
    public nonisolated let cardTimeoutMilliseconds: UInt8
    /// The wait for an APDU's answer over the link (the card's time included).
    public nonisolated let apduTimeout: Duration
    private let logger: Logger
    private var card: (id: UFRCardID, type: UFRCardType)?
    private var phase = Phase.idle

    private enum Phase {
        case idle
        case selecting
        case selected
    }

    /// - Parameters:
    ///   - connection: the protocol connection to the reader.
    ///   - cardTimeoutMilliseconds: the card timeout each APDU carries (default 250 ms).
    ///   - apduTimeout: the wait for an APDU's answer; the connection's reply timeout when nil.
    ///   - logger: the driver's log.
    public init(
        connection: UFRConnection, cardTimeoutMilliseconds: UInt8 = 250, apduTimeout: Duration? = nil, logger: Logger
    ) {
        self.connection = connection
        self.cardTimeoutMilliseconds = cardTimeoutMilliseconds
        self.apduTimeout = apduTimeout ?? connection.timing.replyTimeout
        self.logger = logger
    }

    /// Asks the reader who it is (type, serial number, firmware).
    public func identify() async throws -> UFRReaderIdentity {
        let type = try await expectResponse(try UFRCommand(.getReaderType))
        guard type.extensionData.count >= 4 else {
            throw UFRError.unexpectedReply(.getReaderType, "\(type.extensionData.count) bytes, 4 expected")
        }
        let typeCode = type.extensionData.prefix(4).reversed().reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        // Older firmware may not know GET_SERIAL_NUMBER: the serial is optional.
        let serial = try? await expectResponse(try UFRCommand(.getSerialNumber))
        let serialText = serial.flatMap { reply in
            String(validating: reply.extensionData.prefix { $0 != 0 }, as: UTF8.self)
        }
        let firmware = try await expectResponse(try UFRCommand(.getFirmwareVersion))
        return UFRReaderIdentity(
            readerType: typeCode, serialNumber: serialText, firmware: (firmware.value0, firmware.value1))
    }

    /// Whether a card is in the field (GET_CARD_ID_EX; NO_CARD means none). While a session is
    /// open the reader does not poll, so the card counts as present without asking.
    public func presence() async throws -> CardPresence {
        guard phase == .idle else { return .present }
        do {
            _ = try await currentCard()
            return .present
        } catch UFRError.readerError(_, .noCard) {
            card = nil
            return .absent
        }
    }

    /// The card in the field now: its ID, and its type when the ID is new.
    public func currentCard() async throws -> (id: UFRCardID, type: UFRCardType) {
        let reply = try await expectResponse(try UFRCommand(.getCardIDEx))
        guard let id = UFRCardID(reply: reply) else {
            throw UFRError.unexpectedReply(
                .getCardIDEx, "UID length \(reply.value1) with \(reply.extensionData.count) bytes")
        }
        if let card, card.id == id { return card }
        let type = UFRCardType(rawValue: try await expectResponse(try UFRCommand(.getDLogicCardType)).value0)
        logger.debug("uFR: card in the field", metadata: ["card": "\(id)", "type": "\(type)"])
        card = (id, type)
        return (id, type)
    }

    /// Opens an ISO 14443-4 session with the card and returns its ATR. A session already open
    /// is ended first (a cold reset).
    public func powerOn() async throws -> [UInt8] {
        if phase != .idle { await deselect() }
        let card = try await currentCard()
        guard card.type.isISODEP else { throw UFRError.notISODEP(card.type) }
        phase = .selecting
        do {
            _ = try await expectResponse(try UFRCommand(.setISO14443Layer4Mode))
        } catch {
            await deselect()
            throw error
        }
        phase = .selected
        return card.type.atr
    }

    /// Sends a command APDU to the card and returns its answer (data, SW1, SW2).
    public func transmit(_ apdu: [UInt8]) async throws -> [UInt8] {
        guard phase == .selected, let card else { throw UFRError.cardNotPowered }
        if apdu.first == 0xFF { return Self.answerPseudoAPDU(apdu, uid: card.id.uid) }
        guard apdu.count <= UFRCommand.maximumExtensionDataCount else { throw UFRError.commandTooLong(apdu.count) }
        let command = try UFRCommand(.apduTransceive, parameter1: cardTimeoutMilliseconds, extensionData: apdu)
        let reply: UFRReply
        do {
            reply = try await connection.execute(command, timeout: apduTimeout)
        } catch let error as UFRError where error.meansCardLost {
            await loseCard(error)
            throw error
        }
        if let status = reply.status {
            let error = UFRError.readerError(.apduTransceive, status)
            if error.meansCardLost { await loseCard(error) }
            throw error
        }
        guard reply.extensionData.count >= 2 else {
            throw UFRError.unexpectedReply(.apduTransceive, "\(reply.extensionData.count) bytes, no status word")
        }
        return reply.extensionData
    }

    /// Ends the card session (S_BLOCK_DESELECT, whose errors are ignored: it only restores the
    /// reader's polling). Safe when no session is open.
    public func powerOff() async throws {
        guard phase != .idle else { return }
        await deselect()
    }

    private func loseCard(_ error: UFRError) async {
        logger.debug("uFR: card lost in session", metadata: ["error": "\(error)"])
        await deselect()
        card = nil
    }

    private func deselect() async {
        phase = .idle
        do {
            let command = try UFRCommand(.sBlockDeselect, parameter0: 100)
            let reply = try await connection.execute(command)
            if let status = reply.status { logger.debug("uFR: deselect answered \(status)") }
        } catch {
            logger.debug("uFR: deselect failed", metadata: ["error": "\(error)"])
        }
    }

    /// Sends a command whose answer must be an RSP; an ERR throws ``UFRError/readerError(_:_:)``.
    func expectResponse(_ command: UFRCommand) async throws -> UFRReply {
        let reply = try await connection.execute(command)
        if let status = reply.status { throw UFRError.readerError(command.code, status) }
        return reply
    }

    /// PC/SC part 3 pseudo-APDUs a uFR reader has no command for, answered as a PC/SC reader
    /// would: GET DATA UID from the reader's UID; anything else "function not supported".
    static func answerPseudoAPDU(_ apdu: [UInt8], uid: [UInt8]) -> [UInt8] {
        guard apdu.count == 5, apdu[1] == 0xCA, apdu[2] == 0x00, apdu[3] == 0x00 else { return [0x6A, 0x81] }
        let expected = Int(apdu[4])
        // The UID comes from the reader: one it could not have sent (over 255 bytes) is an error,
        // not a trap.
        guard let length = UInt8(exactly: uid.count) else { return [0x6F, 0x00] }
        if expected != 0, expected < uid.count { return [0x6C, length] }
        return uid + [0x90, 0x00]
    }
}
