import CardFlow
import Logging

/// An NTAG213/215/216 or MIFARE Ultralight EV1 (an NFC Forum Type 2 tag) through a PC/SC
/// reader: GET_VERSION, READ, FAST_READ, WRITE, COMPATIBILITY_WRITE, READ_CNT, READ_SIG,
/// PWD_AUTH with its PACK check, the access configuration, and NDEF.
///
/// ## Which path each command takes
///
/// PC/SC part 3 has READ BINARY and UPDATE BINARY for a Type 2 tag's pages (`FF B0 00 page 10`
/// reads four pages, `FF D6 00 page 04` writes one): READ and WRITE use them while no
/// password is involved. Every other command — GET_VERSION `60`, FAST_READ `3A`,
/// COMPATIBILITY_WRITE `A0`, READ_CNT `39`, READ_SIG `3C`, PWD_AUTH `1B` — goes as a raw frame
/// through the reader's pass-through (``StorageRawFrameTransport``, the route from
/// ``StorageReaderVariant/rawFrameRoute``). After a successful PWD_AUTH on a reader whose
/// family needs it (``StorageReaderVariant/rawPathAfterAuthentication``: ACS, where a part 3
/// read after PWD_AUTH fails), READ and WRITE stay on the raw path (`30`, `A2`) for the rest of
/// the client's life; `rawPathOnly` keeps them there from the start. Whether Identiv and
/// OMNIKEY readers mix `FF B0` with an open part 3 transparent session was not verified.
///
/// Behind the ACR122U the raw path is its PN532, whose CIU checks CRCs: a 4-bit ACK or NAK
/// through InCommunicateThru is a CRC error there. WRITE and COMPATIBILITY_WRITE go by
/// InDataExchange instead (the PN532 takes the ACK; its status `14` is the NAK), and a data
/// command's CRC error is the tag's NAK (``StorageRawFrameRoute/passesFourBitAnswers``).
///
/// ## Passwords
///
/// PWD and PACK travel in clear on RF: PWD_AUTH sends the password as is and the tag answers
/// PACK as is. The protection stops accidental or casual overwriting; anyone who listens to
/// one authentication can replay it. Password bytes are never logged.
///
/// ## Originality signature
///
/// ``readSignature()`` returns NXP's 32-byte ECC originality signature over the UID. It is not
/// verified here: the curve (secp128r1) is not in swift-crypto, and this layer does not
/// carry its own implementation of it.
///
/// A NAK halts the tag (it goes back to IDLE): reconnect before the next command.
///
/// ```swift
/// try await reader.withSession { session in
///     let tag = try await NTAGClient.open(on: session)
///     _ = try await tag.authenticate(password: try Type2Password([1, 2, 3, 4]), expectedPACK: [0xAB, 0xCD])
///     try await tag.write(page: 4, [0xDE, 0xAD, 0xBE, 0xEF])
///     try await tag.finish()
/// }
/// ```
public actor NTAGClient {
    /// The channel to the tag.
    public nonisolated let channel: any CardChannel
    /// The reader family's dialect.
    public nonisolated let variant: StorageReaderVariant
    /// The raw-frame pass-through on `channel`.
    public nonisolated let transport: StorageRawFrameTransport
    /// The tag's product (memory map, configuration pages).
    public nonisolated let product: Type2Product
    /// Keep READ and WRITE on the raw path from the start.
    public nonisolated let rawPathOnly: Bool
    /// Why raw frames cannot be used on this reader: the reader's refusal of its pass-through
    /// (a reader without PC/SC part 3's transparent exchange `FF C2`), seen when the client was
    /// opened; nil when they can. READ and WRITE then use `FF B0` / `FF D6` only, and commands
    /// that need a raw frame fail with ``StorageCardError/unsupportedByReader(family:what:)``
    /// before anything is sent.
    public nonisolated let rawFrameRefusal: StorageCardError?
    private let logger: Logger
    /// Whether PWD_AUTH succeeded in this session.
    public private(set) var authenticated = false

    /// The most pages one FAST_READ asks for (128 bytes keep every route's answer within a
    /// short response APDU).
    public static let fastReadPageLimit = 32

    /// A client for a tag whose product is known.
    public init(
        channel: any CardChannel, variant: StorageReaderVariant, product: Type2Product, rawPathOnly: Bool = false,
        rawFrameRefusal: StorageCardError? = nil, logger: Logger = Logger(label: "cardflow.storagecards")
    ) {
        self.channel = channel
        self.variant = variant
        self.product = product
        self.rawPathOnly = rawPathOnly
        self.rawFrameRefusal = rawFrameRefusal
        self.logger = logger
        transport = StorageRawFrameTransport(channel: channel, route: variant.rawFrameRoute, logger: logger)
    }

    /// A client for the tag in `session`: the ATR must name an Ultralight (which NTAG21x
    /// report) or Ultralight EV1, GET_VERSION names the product, the dialect comes from the
    /// reader's USB IDs unless `variant` is given.
    ///
    /// - Throws: ``StorageCardError/notAType2Tag(_:)`` for another ATR or a GET_VERSION this
    ///   layer does not know. A tag that does not answer GET_VERSION (a plain Ultralight) is
    ///   opened as ``Type2Product/ultralight`` — it is halted then: reconnect before using it.
    ///   A reader that refuses the raw-frame pass-through (no `FF C2` transparent exchange)
    ///   is no error: the product comes from the capability container (page 3, read with
    ///   `FF B0`; ``Type2Product/init(capabilityContainer:)``, ``Type2Product/ultralight``
    ///   when it names none) and the client keeps the refusal in ``rawFrameRefusal``.
    public static func open(
        on session: CardSession, variant: StorageReaderVariant? = nil, rawPathOnly: Bool = false,
        logger: Logger = Logger(label: "cardflow.storagecards")
    ) async throws -> NTAGClient {
        let atr = await session.identity.atr
        guard let kind = StorageCardKind(atr: atr) else {
            throw StorageCardError.notAType2Tag("ATR \(atr.spacedHexString)")
        }
        guard kind == .mifareUltralight || kind == .mifareUltralightEV1 else {
            throw StorageCardError.notAType2Tag(kind.description)
        }
        let info = session.reader.info
        let variant = variant ?? .lookup(vendorID: info.vendorID, productID: info.productID)
        let probe = NTAGClient(channel: session, variant: variant, product: .ultralight, logger: logger)
        let product: Type2Product
        var refusal: StorageCardError?
        do {
            let version = try await probe.getVersion()
            guard let known = Type2Product(version: version) else {
                throw StorageCardError.notAType2Tag("GET_VERSION \(version.spacedHexString)")
            }
            product = known
        } catch StorageCardError.cardNAK, StorageCardError.rfNoAnswer {
            product = .ultralight
        } catch let error as StorageCardError where error.isPassThroughRefusal && !rawPathOnly {
            // The reader has no raw-frame route (the card saw nothing): pages still work.
            logger.notice(
                "the reader refuses raw frames; pages through FF B0/FF D6 only", metadata: ["refusal": "\(error)"])
            refusal = error
            let header = try await probe.read(page: 0)
            product = Type2Product(capabilityContainer: Array(header[12..<16])) ?? .ultralight
        }
        // The probe's transport may hold the transparent session open: the new client reuses
        // the same reader state, so hand over by starting its own when needed.
        try await probe.transport.endSession()
        return NTAGClient(
            channel: session, variant: variant, product: product, rawPathOnly: rawPathOnly,
            rawFrameRefusal: refusal, logger: logger)
    }

    /// Whether READ and WRITE go as raw frames now.
    public var usesRawPath: Bool { rawPathOnly || (authenticated && variant.rawPathAfterAuthentication) }

    /// Ends the reader's transparent session, if one is open (part 3 route). Call it before the
    /// session with the card ends.
    public func finish() async throws {
        try await transport.endSession()
    }

    // MARK: - Identification

    /// GET_VERSION (`60`): 8 bytes — header, vendor, product type, subtype, major, minor,
    /// storage size, protocol (``Type2Product/init(version:)`` decodes them).
    public func getVersion() async throws -> [UInt8] {
        try await data(frame: [0x60], page: nil, length: 8)
    }

    /// READ_SIG (`3C 00`): the 32-byte originality signature, not verified (see the type's
    /// documentation).
    public func readSignature() async throws -> [UInt8] {
        try requireEV1("read the originality signature")
        return try await data(frame: [0x3C, 0x00], page: nil, length: 32)
    }

    /// READ_CNT (`39 nn`): a 24-bit counter, least significant byte first on RF. NTAG21x have
    /// counter 02 (the NFC counter, counting only with NFC_CNT_EN set); Ultralight EV1 00–02.
    public func readCounter(_ number: UInt8? = nil) async throws -> UInt32 {
        guard let numbers = product.counterNumbers else {
            throw StorageCardError.unsupportedByProduct(product: product, what: "read counters")
        }
        let number = number ?? numbers.upperBound
        guard numbers.contains(number) else {
            throw StorageCardError.unsupportedByProduct(product: product, what: "read counter \(number)")
        }
        let bytes = try await data(frame: [0x39, number], page: nil, length: 3)
        return UInt32(bytes[0]) | UInt32(bytes[1]) << 8 | UInt32(bytes[2]) << 16
    }

    // MARK: - Pages

    /// READ: the 16 bytes of pages `page` to `page + 3` (the tag rolls over past its end).
    public func read(page: Int) async throws -> [UInt8] {
        try checkPage(page)
        guard !usesRawPath else { return try await data(frame: [0x30, UInt8(page)], page: page, length: 16) }
        let command = try PCSCStorageCommand.readBinary(block: page, length: 16)
        let response = try await exchange(command, operation: "read page \(page)")
        try checkPageAccess(response, command: command, page: page, what: "read")
        guard response.data.count == 16 else {
            throw StorageCardError.unexpectedResponse(instruction: command.ins, length: response.data.count)
        }
        return response.data
    }

    /// FAST_READ (`3A start end`): the pages `pages` in one answer. NTAG21x and Ultralight EV1
    /// only; at most ``fastReadPageLimit`` pages.
    public func fastRead(_ pages: ClosedRange<Int>) async throws -> [UInt8] {
        try requireEV1("FAST_READ")
        try checkPage(pages.lowerBound)
        try checkPage(pages.upperBound)
        guard pages.count <= Self.fastReadPageLimit else {
            throw StorageCardError.invalidArgument(
                "FAST_READ of \(pages.count) pages (at most \(Self.fastReadPageLimit))")
        }
        return try await data(
            frame: [0x3A, UInt8(pages.lowerBound), UInt8(pages.upperBound)], page: pages.lowerBound,
            length: pages.count * 4)
    }

    /// The bytes of `pages`: FAST_READ in chunks on the raw path of a tag that has it, else
    /// READ four pages at a time.
    public func readPages(_ pages: ClosedRange<Int>) async throws -> [UInt8] {
        try checkPage(pages.lowerBound)
        try checkPage(pages.upperBound)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(pages.count * 4)
        var next = pages.lowerBound
        while next <= pages.upperBound {
            if usesRawPath && product.hasEV1Commands {
                let last = min(pages.upperBound, next + Self.fastReadPageLimit - 1)
                bytes += try await fastRead(next...last)
                next = last + 1
            } else {
                let chunk = try await read(page: next)
                bytes += chunk.prefix(min(16, (pages.upperBound - next + 1) * 4))
                next += 4
            }
        }
        return bytes
    }

    /// WRITE: one page of 4 bytes. On the raw path through an ACS reader's direct transmit, a
    /// `63 00` answer (a reader that does not pass the tag's ACK on) is settled by reading the
    /// page back: the bytes written there mean success, others
    /// ``StorageCardError/cardNAK(command:page:code:likelyCause:)``.
    public func write(page: Int, _ data: [UInt8]) async throws {
        try checkPage(page)
        guard data.count == 4 else { throw StorageCardError.invalidArgument("a page has 4 bytes, not \(data.count)") }
        guard !usesRawPath else {
            try await rawWrite(page: page, data)
            return
        }
        let command = try PCSCStorageCommand.updateBinary(block: page, data: data)
        let response = try await exchange(command, operation: "write page \(page)", redact: isSecretPage(page))
        try checkPageAccess(response, command: command, page: page, what: "write")
    }

    /// WRITE as a raw frame (`A2 page data`), answered by the tag's 4-bit ACK.
    ///
    /// An ACS reader's direct transmit may not pass that ACK on: an ACR1281U-C1 answered a
    /// WRITE that took effect with `63 00`, its "no answer" (Stack Overflow 78194226, replayed by
    /// `RecordedCardTests`). There the page, read back, tells: the bytes written mean the ACK,
    /// anything else is the tag's NAK. Pages whose read-back differs from what was written (the
    /// lock and OTP bits, PWD and PACK) cannot be told that way and keep the reader's answer.
    private func rawWrite(page: Int, _ data: [UInt8]) async throws {
        do {
            try await acknowledged(frame: [0xA2, UInt8(page)] + data, page: page, redact: isSecretPage(page))
        } catch StorageCardError.rfNoAnswer(let command, .acsDirectTransmit) where readsBackAsWritten(page) {
            logger.debug(
                "the reader reported no answer to WRITE; reading the page back",
                metadata: ["page": "\(page)", "route": "\(StorageRawFrameRoute.acsDirectTransmit)"])
            let back =
                product.hasEV1Commands ? try await fastRead(page...page) : Array(try await read(page: page).prefix(4))
            guard back == data else {
                throw StorageCardError.cardNAK(
                    command: command, page: page, code: nil,
                    likelyCause:
                        "the reader reported no answer (63 00) and the page does not hold the bytes written: an "
                        + "invalid page, access refused (AUTH0, lock bits, CFGLCK), or the tag left the field")
            }
        }
    }

    /// Whether a page reads back as it was written: user memory and CFG0/CFG1.
    private func readsBackAsWritten(_ page: Int) -> Bool {
        if product.userPages.contains(page) { return true }
        guard let configuration = product.configurationPage else { return false }
        return page == configuration || page == configuration + 1
    }

    /// COMPATIBILITY_WRITE (`A0 page`, then 16 bytes of which the tag keeps the first 4): the
    /// MIFARE Classic style write, always on the raw path.
    public func compatibilityWrite(page: Int, _ data: [UInt8]) async throws {
        try checkPage(page)
        guard data.count == 4 else { throw StorageCardError.invalidArgument("a page has 4 bytes, not \(data.count)") }
        let padded = data + [UInt8](repeating: 0, count: 12)
        guard variant.rawFrameRoute.passesFourBitAnswers else {
            // The PN532 sends both parts itself and takes both ACKs (InDataExchange `A0 page data`).
            try await acknowledged(frame: [0xA0, UInt8(page)] + padded, page: page, redact: isSecretPage(page))
            return
        }
        try await acknowledged(frame: [0xA0, UInt8(page)], page: page, redact: false)
        try await acknowledged(frame: padded, page: page, redact: isSecretPage(page), command: 0xA0)
    }

    // MARK: - Password

    /// PWD_AUTH (`1B PWD`): authenticates with `password` and returns the tag's PACK.
    ///
    /// - Parameters:
    ///   - password: the 4-byte password (sent in clear, never logged).
    ///   - expectedPACK: when given, a PACK other than these 2 bytes is
    ///     ``StorageCardError/packMismatch(expected:received:)`` (the tag is then still
    ///     authenticated, but may not be the tag the password was set on).
    /// - Throws: ``StorageCardError/cardNAK(command:page:code:likelyCause:)`` for a wrong
    ///   password (`0`) or once the authentication limit is reached (`4`); no code behind the
    ///   ACR122U, whose PN532 reports the NAK as a CRC error.
    @discardableResult
    public func authenticate(password: Type2Password, expectedPACK: [UInt8]? = nil) async throws -> [UInt8] {
        try requireEV1("authenticate with a password")
        if let expectedPACK, expectedPACK.count != 2 {
            throw StorageCardError.invalidArgument("a PACK has 2 bytes, not \(expectedPACK.count)")
        }
        authenticated = false
        let pack = try await data(frame: [0x1B] + password.bytes, page: nil, length: 2, redact: true)
        authenticated = true
        if let expectedPACK, pack != expectedPACK {
            throw StorageCardError.packMismatch(expected: expectedPACK, received: pack)
        }
        return pack
    }

    /// CFG0 and CFG1 (AUTH0, ACCESS and the bytes around them).
    public func readConfiguration() async throws -> Type2Configuration {
        let page = try configurationPage()
        let bytes = try await read(page: page)
        return try Type2Configuration(bytes: Array(bytes.prefix(8)))
    }

    /// Writes CFG1 then CFG0 (AUTH0 last, so protection starts only when everything else is in
    /// place). A tag protected from AUTH0 on needs ``authenticate(password:expectedPACK:)`` first.
    public func writeConfiguration(_ configuration: Type2Configuration) async throws {
        let page = try configurationPage()
        try await write(page: page + 1, configuration.cfg1)
        try await write(page: page, configuration.cfg0)
    }

    /// Writes PWD and PACK (`PACK0 PACK1 00 00`). Both read back as zeros.
    public func setPassword(_ password: Type2Password, pack: [UInt8]) async throws {
        guard pack.count == 2 else { throw StorageCardError.invalidArgument("a PACK has 2 bytes, not \(pack.count)") }
        let page = try configurationPage()
        try await write(page: page + 2, password.bytes)
        try await write(page: page + 3, pack + [0x00, 0x00])
    }

    /// Sets the password and PACK, then protects the pages from `auth0` on: writes only
    /// (`protectsReads` false, the default) or reads too, with `authenticationLimit` (AUTHLIM,
    /// 0 = no limit). Reads the configuration first to keep the other bytes, and returns the
    /// configuration written (with PROT, reading it back needs PWD_AUTH in a new session).
    @discardableResult
    public func protect(
        password: Type2Password, pack: [UInt8], auth0: UInt8, protectsReads: Bool = false,
        authenticationLimit: UInt8 = 0
    ) async throws -> Type2Configuration {
        var configuration = try await readConfiguration()
        try await setPassword(password, pack: pack)
        configuration.protectsReads = protectsReads
        configuration.authenticationLimit = authenticationLimit
        configuration.auth0 = auth0
        try await writeConfiguration(configuration)
        return configuration
    }

    // MARK: - Internals

    private func requireEV1(_ what: String) throws(StorageCardError) {
        guard product.hasEV1Commands else { throw .unsupportedByProduct(product: product, what: what) }
    }

    private func configurationPage() throws(StorageCardError) -> Int {
        guard let page = product.configurationPage else {
            throw .unsupportedByProduct(product: product, what: "be configured (no configuration pages)")
        }
        return page
    }

    private func checkPage(_ page: Int) throws(StorageCardError) {
        guard (0..<product.pageCount).contains(page) else {
            throw .pageOutOfRange(page: page, pageCount: product.pageCount)
        }
    }

    private func isSecretPage(_ page: Int) -> Bool { page == product.passwordPage }

    /// Refuses a raw frame up front on a reader that refused the pass-through.
    private func requireRawFrames(_ command: UInt8) throws(StorageCardError) {
        guard let rawFrameRefusal else { return }
        throw .unsupportedByReader(
            family: variant.family,
            what: "send command \([command].hexString) as a raw frame on this reader (it refused the pass-through: "
                + "\(rawFrameRefusal)); only READ and WRITE work, through FF B0 / FF D6")
    }

    /// A command answered with data of `length` bytes; a 1-byte answer of 4 bits is a NAK, and
    /// so is the CRC error `02` of a route that does not pass 4-bit answers on (the PN532's, see
    /// ``StorageRawFrameRoute/passesFourBitAnswers``).
    func data(frame: [UInt8], page: Int?, length: Int, redact: Bool = false) async throws -> [UInt8] {
        let command = frame[0]
        try requireRawFrames(command)
        let answer: [UInt8]
        do {
            answer = try await transport.transceive(frame, redact: redact)
        } catch StorageCardError.rfError(_, let route, 0x02) where !route.passesFourBitAnswers {
            throw nak(command: command, page: page, code: nil)
        }
        if answer.count == 1, answer[0] <= 0x0F {
            throw nak(command: command, page: page, code: answer[0])
        }
        guard answer.count == length else {
            throw StorageCardError.unexpectedResponse(instruction: command, length: answer.count)
        }
        return answer
    }

    /// A command answered with the 4-bit ACK `A`.
    private func acknowledged(frame: [UInt8], page: Int, redact: Bool, command: UInt8? = nil) async throws {
        let command = command ?? frame[0]
        try requireRawFrames(command)
        let answer = try await transport.transceiveAcknowledged(frame, redact: redact, command: command)
        guard case .nak(let code) = answer else { return }
        throw nak(command: command, page: page, code: code)
    }

    private func nak(command: UInt8, page: Int?, code: UInt8?) -> StorageCardError {
        let cause: String
        switch (command, code) {
        case (0x1B, 0x04?): cause = "the authentication limit (AUTHLIM) was reached: the password is blocked for good"
        case (0x1B, nil):
            cause =
                "a wrong password, or the authentication limit (AUTHLIM) was reached (the reader's PN532 does not "
                + "pass the NAK's value on)"
        case (0x1B, _): cause = "a wrong password"
        // READ_CNT answers only with the NFC counter on (ACCESS NFC_CNT_EN) and, with
        // NFC_CNT_PWD_PROT, after PWD_AUTH (NTAG213/215/216 data sheet, READ_CNT).
        case (0x39, 0x00?), (0x39, nil):
            cause =
                "the NFC counter is off (NTAG21x ACCESS NFC_CNT_EN), password-protected (NFC_CNT_PWD_PROT: "
                + "authenticate first), or there is no such counter"
        case (_, 0x00?):
            cause = "an invalid page, or access refused (password protection from AUTH0, lock bits, CFGLCK)"
        case (_, 0x01?): cause = "a parity or CRC error on RF"
        case (_, 0x04?): cause = "the authentication counter overflowed"
        case (_, 0x05?): cause = "an EEPROM write error"
        case (_, nil):
            cause =
                "an invalid page, or access refused (AUTH0, lock bits, CFGLCK), or an RF error: the reader's PN532 "
                + "does not pass the NAK's value on"
        default: cause = "an unknown NAK"
        }
        if command == 0x1B { authenticated = false }
        return .cardNAK(command: command, page: page, code: code, likelyCause: cause)
    }

    private func checkPageAccess(_ response: ResponseAPDU, command: CommandAPDU, page: Int, what: String)
        throws(StorageCardError)
    {
        guard !response.statusWord.isSuccess else { return }
        let cause =
            authenticated && variant.rawPathAfterAuthentication
            ? "this reader family refuses part 3 access after PWD_AUTH"
            : "the page is password protected (AUTH0), locked, or not on the tag; the tag NAKed and is halted"
        throw .pageAccessFailed(
            instruction: command.ins, page: page, statusWord: response.statusWord, likelyCause: "\(cause) (\(what))")
    }

    private func exchange(_ command: CommandAPDU, operation: String, redact: Bool = false) async throws -> ResponseAPDU
    {
        try Task.checkCancellation()
        let shown =
            redact
            ? Array(command.encoded().prefix(5)).spacedHexString + " <redacted>" : command.encoded().spacedHexString
        logger.trace("type 2 tag command", metadata: ["apdu": "\(shown)", "operation": "\(operation)"])
        do {
            let response = try await channel.transmit(command)
            logger.trace("type 2 tag answer", metadata: ["apdu": "\(response.encoded().spacedHexString)"])
            return response
        } catch let error where error.meansCardLost {
            authenticated = false
            throw StorageCardError.cardLost(error.cardLoss ?? .notResponding, operation: operation)
        }
    }
}
