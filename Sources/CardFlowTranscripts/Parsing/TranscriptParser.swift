/// Reads pcscd + libccid debug logs as people paste them into bug reports.
///
/// Tolerant of noise: timestamps or none, thread ids, syslog prefixes, colour codes, quoting
/// (`> `), lines of other programs, and hex wrapped onto the next line are all accepted. Strict
/// about what it keeps: an arrow line must be one whole CCID message (dwLength counting exactly
/// the bytes after the header, a message type of the arrow's direction), otherwise it is listed
/// as a ``TranscriptProblem`` and the conversation is split there, as at a gap line
/// (`# --- gap …`).
///
/// Logs of applications that write the CCID messages themselves are read too: libnfc's ACR122U
/// driver (`libnfc.driver.acr122_usb  TX: 6f 05 00 …` / `RX: 80 02 00 …`). They have no APDU
/// lines, so the payload of each XfrBlock is taken as the command APDU and that of the DataBlock
/// answering it as the response. Feitian's mobile reader SDK traces are read the same way: a
/// `==========write:` or `==========read:` line, then the message as hex in groups of up to four
/// bytes (`6f0c0000 00000300 000000a4 …`).
///
/// ```swift
/// let transcript = try TranscriptParser.parse(text)
/// for segment in transcript.segments { print(segment.frames.count) }
/// ```
public enum TranscriptParser {
    /// The largest text read (16 MiB): far above any pasted log.
    public static let maximumTextLength = 16 << 20

    /// Parses the text of a transcript file or a pasted log.
    ///
    /// - Throws: ``TranscriptParseError`` when the text is too large or holds no conversation.
    public static func parse(_ text: String) throws(TranscriptParseError) -> Transcript {
        let size = text.utf8.count
        guard size <= maximumTextLength else { throw .tooLarge(bytes: size, limit: maximumTextLength) }
        var state = ParserState()
        var lineNumber = 0
        // Any line end: LF, CR LF (one Character in Swift, so not split by "\n"), CR.
        for raw in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline) {
            lineNumber += 1
            state.read(LogLine(raw), line: lineNumber)
        }
        state.finish()
        guard state.segments.contains(where: { !$0.events.isEmpty }) else {
            throw .noConversation(lines: lineNumber)
        }
        return Transcript(header: state.header, segments: state.segments, problems: state.problems)
    }
}

/// The parser's progress through the lines.
private struct ParserState {
    var header = TranscriptHeader()
    var segments: [TranscriptSegment] = []
    var problems: [TranscriptProblem] = []
    private var events: [TranscriptEvent] = []
    private var segmentStart = 1
    /// An arrow line whose message is not complete yet (its hex may continue on the next line).
    private var pendingFrame:
        (direction: RecordedFrame.Direction, readerIndex: Int, bytes: [UInt8], line: Int, application: Bool)?
    /// A Feitian SDK trace announced a message (`==========write:`): its grouped hex comes next.
    private var announcedFrame: RecordedFrame.Direction?
    /// The last CCID command an application logged itself (libnfc) was an XfrBlock whose answer
    /// has not come yet.
    private var applicationAwaitsResponse = false
    /// The last line was a byte list without a known length (APDU, SW, T=1 block): a following
    /// line of bare hex continues it.
    private var openByteList = false

    mutating func read(_ line: LogLine, line number: Int) {
        let text = line.unquoted
        if text.hasPrefix("#") {
            finishPendingFrame()
            openByteList = false
            readCommentLine(text.dropFirst().drop(while: \.isWhitespace), line: number)
            return
        }
        let message = line.message
        if let direction = announcedFrame {
            announcedFrame = nil
            finishPendingFrame()
            // The unquoted text: a group of eight digits would pass for pcscd's timestamp.
            if let bytes = LogLine.groupedHexBytes(text), !bytes.isEmpty {
                pendingFrame = (direction, 0, bytes, number, true)
                if bytes.count >= 10, bytes.count - 10 >= RecordedFrame.declaredLength(bytes) { finishPendingFrame() }
                return
            }
        }
        if let pending = pendingFrame,
            let more = LogLine.hexBytes(message) ?? (pending.application ? LogLine.groupedHexBytes(text) : nil),
            !more.isEmpty
        {
            pendingFrame?.bytes = pending.bytes + more
            if let bytes = pendingFrame?.bytes, bytes.count >= 10,
                bytes.count - 10 >= RecordedFrame.declaredLength(bytes)
            {
                finishPendingFrame()
            }
            return
        }
        finishPendingFrame()
        if openByteList, !message.isEmpty, let more = LogLine.hexBytes(message) {
            extendLastByteList(more)
            return
        }
        openByteList = false
        readMessage(message, line: number)
    }

    mutating func finish() {
        finishPendingFrame()
        closeSegment(nextStart: 0)
    }

    private mutating func readCommentLine(_ comment: Substring, line: Int) {
        if comment.hasPrefix("---") {
            // "# --- gap …": the log continues later; what follows is a new segment.
            closeSegment(nextStart: line + 1)
            return
        }
        guard let colon = comment.firstIndex(of: ":") else { return }
        let key = comment[..<colon].trimmingBlanks().lowercased()
        let value = String(comment[comment.index(after: colon)...].trimmingBlanks())
        switch key {
        case "source": header.source = value
        case "card": header.card = value
        case "license": header.license = value
        case "descriptor": header.descriptorFile = value
        case "note": header.notes.append(value)
        case "reader": readReaderHeader(value, line: line)
        case "interface":
            if let number = Int(value), number >= 0 { header.interface = number } else { invalidHeader(key, line) }
        case "atr":
            if let bytes = LogLine.hexBytes(value[...]), !bytes.isEmpty {
                header.answerToReset = bytes
            } else {
                invalidHeader(key, line)
            }
        case "protocol":
            switch value.uppercased() {
            case "T=0", "0": header.transmissionProtocol = 0
            case "T=1", "1": header.transmissionProtocol = 1
            default: invalidHeader(key, line)
            }
        default: return
        }
    }

    private mutating func readReaderHeader(_ value: String, line: Int) {
        // "NAME VVVV:PPPP": the USB IDs are the last word.
        let words = value.split(separator: " ")
        if let last = words.last, let ids = Self.usbIDs(last, separator: ":") {
            header.vendorID = ids.vendor
            header.productID = ids.product
            header.readerName = words.dropLast().joined(separator: " ")
        } else {
            header.readerName = value
            invalidHeader("reader", line)
        }
    }

    private mutating func invalidHeader(_ key: String, _ line: Int) {
        problems.append(TranscriptProblem(line: line, reason: .invalidHeaderValue(key: key)))
    }

    private mutating func readMessage(_ message: Substring, line: Int) {
        if let direction = Self.arrow(message) {
            let afterArrow = message.dropFirst(3)
            let index = afterArrow.prefix(while: \.isNumber)
            guard index.count == 6, let readerIndex = Int(index) else { return }
            guard let bytes = LogLine.hexBytes(afterArrow.dropFirst(6)) else {
                problems.append(TranscriptProblem(line: line, reason: .invalidHex))
                closeSegment(nextStart: line + 1)
                return
            }
            pendingFrame = (direction, readerIndex, bytes, line, false)
            if bytes.count >= 10, bytes.count - 10 >= RecordedFrame.declaredLength(bytes) { finishPendingFrame() }
            return
        }
        if let direction = Self.announcedDirection(message) {
            announcedFrame = direction
            return
        }
        if let (direction, hex) = Self.applicationFrame(message) {
            guard let bytes = LogLine.hexBytes(hex), !bytes.isEmpty else {
                problems.append(TranscriptProblem(line: line, reason: .invalidHex))
                closeSegment(nextStart: line + 1)
                return
            }
            pendingFrame = (direction, 0, bytes, line, true)
            if bytes.count >= 10, bytes.count - 10 >= RecordedFrame.declaredLength(bytes) { finishPendingFrame() }
            return
        }
        for (marker, make) in Self.byteListMarkers where message.hasPrefix(marker) {
            guard let bytes = LogLine.hexBytes(message.dropFirst(marker.count)) else {
                // "received: 0, expected: 1" is proto-t1.c talking, not a block.
                return
            }
            if make == nil { readNotifySlotChange(bytes) } else if let make { events.append(make(bytes)) }
            openByteList = make != nil
            return
        }
        readDiagnostics(message)
    }

    private mutating func readNotifySlotChange(_ bytes: [UInt8]) {
        if !bytes.isEmpty { events.append(.interrupt(bytes)) }
    }

    /// Errors and the reader's identity, wherever they appear in a message.
    private mutating func readDiagnostics(_ message: Substring) {
        if let kind = Self.failureKind(message) {
            events.append(.failure(TranscriptFailure(kind: kind, text: String(message))))
            return
        }
        if let rate = Self.declaredDataRate(message) {
            header.dataRates.append(rate)
            return
        }
        if header.vendorID == nil, let ids = Self.usbIDsInLog(message) {
            header.vendorID = ids.vendor
            header.productID = ids.product
        }
        if header.readerName == nil, let found = message.range(of: "Found Vendor/Product: "),
            let open = message[found.upperBound...].firstIndex(of: "("), message.last == ")"
        {
            header.readerName = String(message[message.index(after: open)..<message.index(before: message.endIndex)])
        }
    }

    private mutating func finishPendingFrame() {
        guard let pending = pendingFrame else { return }
        pendingFrame = nil
        do {
            let frame = try RecordedFrame(
                direction: pending.direction, readerIndex: pending.readerIndex, bytes: pending.bytes)
            if pending.application { appendApplicationFrame(frame) } else { events.append(.frame(frame)) }
        } catch {
            problems.append(TranscriptProblem(line: pending.line, reason: .invalidFrame(error)))
            // What follows cannot be matched to what came before: a new segment.
            closeSegment(nextStart: pending.line + 1)
        }
    }

    /// A message of an application that writes the CCID messages itself and logs no APDU lines
    /// (libnfc's acr122_usb driver): the payload of its XfrBlock is the command APDU it sent, and
    /// the payload of the DataBlock that answers it is the response it got. An empty DataBlock
    /// gives no response: such an application reports its own error, which is not read here.
    private mutating func appendApplicationFrame(_ frame: RecordedFrame) {
        switch (frame.direction, frame.messageType) {
        case (.bulkOut, .xfrBlock):
            events.append(.commandAPDU(Array(frame.payload)))
            events.append(.frame(frame))
            applicationAwaitsResponse = true
        case (.bulkIn, .dataBlock) where applicationAwaitsResponse:
            events.append(.frame(frame))
            if !frame.payload.isEmpty { events.append(.responseAPDU(Array(frame.payload))) }
            applicationAwaitsResponse = false
        default:
            events.append(.frame(frame))
            if frame.direction == .bulkOut { applicationAwaitsResponse = false }
        }
    }

    private mutating func extendLastByteList(_ more: [UInt8]) {
        guard let last = events.popLast() else { return }
        switch last {
        case .commandAPDU(let bytes): events.append(.commandAPDU(bytes + more))
        case .responseAPDU(let bytes): events.append(.responseAPDU(bytes + more))
        case .t1Sent(let bytes): events.append(.t1Sent(bytes + more))
        case .t1Received(let bytes): events.append(.t1Received(bytes + more))
        case .answerToReset(let bytes): events.append(.answerToReset(bytes + more))
        default: events.append(last)
        }
    }

    private mutating func closeSegment(nextStart: Int) {
        if !events.isEmpty { segments.append(TranscriptSegment(firstLine: segmentStart, events: events)) }
        events = []
        segmentStart = nextStart
    }

    /// A data rate libccid read with GET_DATA_RATES at start-up: `get_data_rates() declared: 125000 bps`.
    private static func declaredDataRate(_ message: Substring) -> UInt32? {
        guard let marker = message.range(of: "get_data_rates() declared: ") else { return nil }
        let rest = message[marker.upperBound...]
        guard rest.hasSuffix(" bps") else { return nil }
        return UInt32(rest.dropLast(4))
    }

    /// Markers of byte lists at the start of a message; nil builds NotifySlotChange.
    private static let byteListMarkers: [(String, (@Sendable ([UInt8]) -> TranscriptEvent)?)] = [
        ("APDU:", { .commandAPDU($0) }),
        ("SW:", { .responseAPDU($0) }),
        ("sending:", { .t1Sent($0) }),
        ("received:", { .t1Received($0) }),
        ("Card ATR:", { .answerToReset($0) }),
        ("NotifySlotChange:", nil),
    ]

    /// A CCID message an application logged without pcscd: libnfc's acr122_usb driver
    /// (`debug  libnfc.driver.acr122_usb  TX: 6f 05 00 …`, `RX: 80 02 00 …`, bSeq always 0,
    /// sometimes with double blanks and wrapped onto the next line). The hex after the marker.
    private static func applicationFrame(_ message: Substring) -> (RecordedFrame.Direction, Substring)? {
        guard let component = message.range(of: "libnfc.driver.") else { return nil }
        let rest = message[component.upperBound...]
        if let marker = rest.range(of: "TX: ") { return (.bulkOut, rest[marker.upperBound...]) }
        if let marker = rest.range(of: "RX: ") { return (.bulkIn, rest[marker.upperBound...]) }
        return nil
    }

    /// Feitian's mobile reader SDK announces each CCID message it writes or reads on a line of its
    /// own; the hex follows on the next line.
    private static func announcedDirection(_ message: Substring) -> RecordedFrame.Direction? {
        if message.hasPrefix("==========write:") { return .bulkOut }
        if message.hasPrefix("==========read:") { return .bulkIn }
        return nil
    }

    private static func arrow(_ message: Substring) -> RecordedFrame.Direction? {
        if message.hasPrefix("-> ") { return .bulkOut }
        if message.hasPrefix("<- ") { return .bulkIn }
        return nil
    }

    private static func failureKind(_ message: Substring) -> TranscriptFailure.Kind? {
        if message.contains("Card absent or mute") { return .cardAbsentOrMute }
        if message.contains("LIBUSB_ERROR_TIMEOUT") {
            return message.contains("write failed") ? .writeTimeout : .readTimeout
        }
        if message.contains("LIBUSB_ERROR_IO") || message.contains("LIBUSB_ERROR_NO_DEVICE")
            || message.contains("LIBUSB_ERROR_PIPE")
        {
            return .usbFailure
        }
        if message.contains("Protocol not supported") { return .protocolNotSupported }
        // SCARD_E_NOT_TRANSACTED as applications print it ("0x80100016:An attempt was made …").
        if message.contains("Card not transacted") || message.hasPrefix("0x80100016") { return .notTransacted }
        return nil
    }

    /// "usb:072f/2200:libudev…", "Found Vendor/Product: 04E6/5790 (…)", "vid/pid : 072F/2200".
    private static func usbIDsInLog(_ message: Substring) -> (vendor: UInt16, product: UInt16)? {
        for marker in ["usb:", "Found Vendor/Product: ", "vid/pid : "] {
            guard let range = message.range(of: marker) else { continue }
            let rest = message[range.upperBound...]
            if let ids = usbIDs(rest.prefix(9), separator: "/") { return ids }
        }
        return nil
    }

    private static func usbIDs(_ text: Substring, separator: Character) -> (vendor: UInt16, product: UInt16)? {
        let parts = text.split(separator: separator, omittingEmptySubsequences: false)
        guard parts.count == 2, parts[0].count == 4, parts[1].count == 4,
            let vendor = UInt16(parts[0], radix: 16), let product = UInt16(parts[1], radix: 16)
        else { return nil }
        return (vendor, product)
    }
}

extension Substring {
    fileprivate func trimmingBlanks() -> Substring {
        let start = drop(while: \.isWhitespace)
        guard let last = start.lastIndex(where: { !$0.isWhitespace }) else { return start[start.endIndex...] }
        return start[...last]
    }
}
