import Foundation

/// A recorded conversation with a real card at the APDU level: the command APDUs a host sent
/// and the response APDUs the card (or its reader, for PC/SC part 3 pseudo-APDUs) gave, in
/// order, with where they were published. ``RecordedConversationCard`` replays it.
///
/// The file format (UTF-8 text, one item a line; blank lines and other `#` lines are comments):
///
/// ```text
/// # source: https://github.com/nfc-tools/libfreefare/issues/NN
/// # card: MIFARE DESFire EV1 4K
/// # license: the bytes are facts quoted from a public issue; no code was copied
/// # ats: 06 75 77 81 02 80
/// # uid: 04 11 45 92 9F 65 80
/// > 90 60 00 00 00
/// < 04 01 01 01 00 18 05 91 AF
/// ```
///
/// - `# source:`, `# card:` and `# license:` are required; so is exactly one of
///   `# ats:` (ISO-DEP type A with that ATS, TL first), `# atr:` (a contact card with that ATR)
///   and `# storage: SS NNNN` (a PC/SC part 3 storage card: standard byte and card name, as
///   the reader's ATR carries them, e.g. `03 0001` for MIFARE Classic 1K). Where a header
///   value comes from another publication than the exchanges, a comment line says so.
/// - `# uid:` is the UID the simulated reader reports (GET DATA `FF CA`) when the recording
///   holds no `FF CA` of its own. Without it (the source published none) the simulated reader
///   knows no UID: its GET DATA returns no bytes, and CardFlow identifies the card by its ATR.
/// - `> HEX` is a command APDU, `< HEX` the response APDU that followed it (data and SW1 SW2,
///   at least two bytes). Each command has exactly one response. Hex digits may be spaced.
public struct APDURecording: Sendable, Hashable {
    /// One recorded command and its response.
    public struct Exchange: Sendable, Hashable {
        public var command: [UInt8]
        public var response: [UInt8]

        public init(command: [UInt8], response: [UInt8]) {
            self.command = command
            self.response = response
        }
    }

    /// Where the exchange was published (a URL).
    public var source: String
    /// The card, as the source names it.
    public var card: String
    /// The license note: what was taken from the source and on what terms.
    public var license: String
    /// The card's anti-collision UID as published; nil when the source does not give it.
    public var uid: [UInt8]?
    /// What the reader sees of the card.
    public var technology: ContactlessTechnology
    /// The exchanges in order.
    public var exchanges: [Exchange]

    public init(
        source: String, card: String, license: String, uid: [UInt8]?, technology: ContactlessTechnology,
        exchanges: [Exchange]
    ) {
        self.source = source
        self.card = card
        self.license = license
        self.uid = uid
        self.technology = technology
        self.exchanges = exchanges
    }

    /// Reads a recording file.
    ///
    /// - Throws: ``APDURecordingError`` when the file cannot be read or breaks the format.
    public init(contentsOfFile path: String) throws(APDURecordingError) {
        guard let data = FileManager.default.contents(atPath: path) else { throw .unreadable(path: path) }
        self = try APDURecording(parsing: String(decoding: data, as: UTF8.self))
    }

    /// Parses a recording's text (see the type's description for the format).
    ///
    /// - Throws: ``APDURecordingError`` naming the line that breaks the format.
    public init(parsing text: String) throws(APDURecordingError) {
        var header: [String: (value: String, line: Int)] = [:]
        var exchanges: [Exchange] = []
        var pendingCommand: (bytes: [UInt8], line: Int)?
        for (index, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let number = index + 1
            let line = rawLine.trimmingCharacters(in: .whitespaces)
            if line.isEmpty { continue }
            if line.hasPrefix("#") {
                let body = line.dropFirst().trimmingCharacters(in: .whitespaces)
                guard let colon = body.firstIndex(of: ":") else { continue }
                let key = body[..<colon].lowercased()
                guard Self.headerKeys.contains(key) else { continue }
                guard header[key] == nil else { throw .duplicateHeader(key: key, line: number) }
                header[key] = (body[body.index(after: colon)...].trimmingCharacters(in: .whitespaces), number)
                continue
            }
            guard let marker = line.first, marker == ">" || marker == "<" else {
                throw .unexpectedLine(line: number, text: String(line.prefix(80)))
            }
            guard let bytes = Self.hexBytes(line.dropFirst()), !bytes.isEmpty else { throw .badHex(line: number) }
            if marker == ">" {
                if let pendingCommand { throw .commandWithoutResponse(line: pendingCommand.line) }
                pendingCommand = (bytes, number)
            } else {
                guard let command = pendingCommand else { throw .responseWithoutCommand(line: number) }
                guard bytes.count >= 2 else { throw .responseWithoutStatus(line: number) }
                exchanges.append(Exchange(command: command.bytes, response: bytes))
                pendingCommand = nil
            }
        }
        if let pendingCommand { throw .commandWithoutResponse(line: pendingCommand.line) }
        func required(_ key: String) throws(APDURecordingError) -> String {
            guard let value = header[key]?.value, !value.isEmpty else { throw .missingHeader(key) }
            return value
        }
        func hex(_ key: String) throws(APDURecordingError) -> [UInt8]? {
            guard let entry = header[key] else { return nil }
            guard let bytes = Self.hexBytes(Substring(entry.value)), !bytes.isEmpty else {
                throw .badHex(line: entry.line)
            }
            return bytes
        }
        source = try required("source")
        card = try required("card")
        license = try required("license")
        uid = try hex("uid")
        let ats = try hex("ats")
        let atr = try hex("atr")
        let storage = try hex("storage")
        switch (ats, atr, storage) {
        case (let ats?, nil, nil): technology = .isoDepTypeA(ats: ats)
        case (nil, let atr?, nil): technology = .contact(atr: atr)
        case (nil, nil, let storage?):
            guard storage.count == 3 else { throw .badStorage(line: header["storage"]?.line ?? 0) }
            technology = .storage(standard: storage[0], cardName: UInt16(storage[1]) << 8 | UInt16(storage[2]))
        default: throw .technology
        }
        guard !exchanges.isEmpty else { throw .noExchanges }
        self.exchanges = exchanges
    }

    static let headerKeys: Set<String> = ["source", "card", "license", "uid", "ats", "atr", "storage"]

    /// The bytes of hex text with optional spaces; nil for anything else.
    static func hexBytes(_ text: Substring) -> [UInt8]? {
        let digits = text.filter { !$0.isWhitespace }
        guard digits.count.isMultiple(of: 2) else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(digits.count / 2)
        var index = digits.startIndex
        while index < digits.endIndex {
            let next = digits.index(index, offsetBy: 2)
            guard let byte = UInt8(digits[index..<next], radix: 16) else { return nil }
            bytes.append(byte)
            index = next
        }
        return bytes
    }
}

/// Why an APDU recording file does not load.
public enum APDURecordingError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The file does not exist or cannot be read.
    case unreadable(path: String)
    /// A required header line (`# source:`, `# card:`, `# license:`) is missing or empty.
    case missingHeader(String)
    /// A header key appears twice.
    case duplicateHeader(key: String, line: Int)
    /// Not exactly one of `# ats:`, `# atr:` and `# storage:`.
    case technology
    /// `# storage:` is not three bytes (the standard byte and the two-byte card name).
    case badStorage(line: Int)
    /// A line that is neither a comment, a header, a command (`>`) nor a response (`<`).
    case unexpectedLine(line: Int, text: String)
    /// Hex that does not decode (odd digit count, other characters, nothing at all).
    case badHex(line: Int)
    /// A command followed by another command, or by the end of the file.
    case commandWithoutResponse(line: Int)
    /// A response with no command before it.
    case responseWithoutCommand(line: Int)
    /// A response shorter than its status word.
    case responseWithoutStatus(line: Int)
    /// No exchange at all.
    case noExchanges

    public var description: String {
        switch self {
        case .unreadable(let path): "cannot read the APDU recording \(path)"
        case .missingHeader(let key): "APDU recording: the '# \(key):' header line is missing"
        case .duplicateHeader(let key, let line): "APDU recording line \(line): a second '# \(key):' line"
        case .technology: "APDU recording: give exactly one of '# ats:', '# atr:' and '# storage:'"
        case .badStorage(let line):
            "APDU recording line \(line): '# storage:' takes three bytes, the standard and the card name (e.g. 03 0001)"
        case .unexpectedLine(let line, let text):
            "APDU recording line \(line): expected '> COMMAND', '< RESPONSE' or a '#' comment, found '\(text)'"
        case .badHex(let line): "APDU recording line \(line): not hex bytes"
        case .commandWithoutResponse(let line): "APDU recording line \(line): a command without its response"
        case .responseWithoutCommand(let line): "APDU recording line \(line): a response without a command"
        case .responseWithoutStatus(let line): "APDU recording line \(line): a response needs SW1 SW2"
        case .noExchanges: "APDU recording: no exchange"
        }
    }
}
