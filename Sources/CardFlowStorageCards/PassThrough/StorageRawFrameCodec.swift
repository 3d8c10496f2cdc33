import CardFlow

/// The pure half of the raw-frame pass-through: a raw card frame into its route's APDU, and the
/// reader's answer back into the card's raw bytes (see ``StorageRawFrameRoute`` for the forms
/// and their sources). ``StorageRawFrameTransport`` sends what this builds.
///
/// ```swift
/// let apdu = try StorageRawFrameCodec.wrap([0x30, 0x04], route: .pn532InCommunicateThru)
/// // FF 00 00 00 04 D4 42 30 04
/// ```
public enum StorageRawFrameCodec {
    /// Start a transparent session: `FF C2 00 00 02 81 00` (Le `00`).
    public static func startTransparentSession() throws(StorageCardError) -> CommandAPDU {
        PCSCTransparentExchange.startSession
    }

    /// End a transparent session: `FF C2 00 00 02 82 00` (Le `00`).
    public static func endTransparentSession() throws(StorageCardError) -> CommandAPDU {
        PCSCTransparentExchange.endSession
    }

    /// The APDU that carries `frame` on `route`.
    ///
    /// - Parameters:
    ///   - frame: the card command as it goes on RF, without CRC (the reader adds it).
    ///   - route: the reader family's route.
    ///   - timeoutMicroseconds: for the part 3 route, a timer DO (`5F 46 04`, little endian)
    ///     before the transceive DO; other routes ignore it.
    /// - Throws: ``StorageCardError/invalidArgument(_:)`` for an empty frame or one longer than
    ///   ``StorageRawFrameRoute/maxFrameLength``.
    public static func wrap(_ frame: [UInt8], route: StorageRawFrameRoute, timeoutMicroseconds: UInt32? = nil)
        throws(StorageCardError) -> CommandAPDU
    {
        guard !frame.isEmpty, frame.count <= route.maxFrameLength else {
            throw .invalidArgument(
                "a raw frame of \(frame.count) bytes does not fit \(route) (1…\(route.maxFrameLength))")
        }
        let data: [UInt8]
        let ins: UInt8
        let p2: UInt8
        var le: Int?
        switch route {
        case .pn532InCommunicateThru:
            (ins, p2, data) = (0x00, 0x00, [0xD4, 0x42] + frame)
        case .acsDirectTransmit:
            (ins, p2, data) = (0x00, 0x00, frame)
        case .part3TransparentExchange:
            var objects: [UInt8] = []
            if let timeoutMicroseconds {
                objects += PCSCTransparentExchange.timerObject(microseconds: timeoutMicroseconds)
            }
            objects += [0x95] + berLength(frame.count) + frame
            (ins, p2, data) = (0xC2, 0x01, objects)
            le = 256
        }
        do {
            return try CommandAPDU(cla: 0xFF, ins: ins, p1: 0x00, p2: p2, data: data, le: le)
        } catch {
            throw .invalidArgument("raw frame APDU: \(error)")
        }
    }

    /// The APDU for a command the card answers with a 4-bit ACK: WRITE `A2 page data(4)`, and on
    /// a route that does not pass 4-bit answers (``StorageRawFrameRoute/passesFourBitAnswers``)
    /// COMPATIBILITY_WRITE as one frame `A0 page data(16)`. The PN532 route carries it in
    /// InDataExchange, `FF 00 00 00 Lc D4 40 01 frame` (UM0701-02 §7.3.8, target 1: the target
    /// the PN532 or the reader's controller activated): the PN532 takes the ACKs itself. Other
    /// routes carry the frame as ``wrap(_:route:timeoutMicroseconds:)`` does.
    ///
    /// - Throws: ``StorageCardError/invalidArgument(_:)`` for an empty or too long frame.
    public static func wrapAcknowledged(
        _ frame: [UInt8], route: StorageRawFrameRoute, timeoutMicroseconds: UInt32? = nil
    ) throws(StorageCardError) -> CommandAPDU {
        guard !route.passesFourBitAnswers else {
            return try wrap(frame, route: route, timeoutMicroseconds: timeoutMicroseconds)
        }
        guard !frame.isEmpty, frame.count < route.maxFrameLength else {
            throw .invalidArgument(
                "a frame of \(frame.count) bytes does not fit InDataExchange (1…\(route.maxFrameLength - 1))")
        }
        do {
            return try CommandAPDU(cla: 0xFF, ins: 0x00, p1: 0x00, p2: 0x00, data: [0xD4, 0x40, 0x01] + frame)
        } catch {
            throw .invalidArgument("InDataExchange APDU: \(error)")
        }
    }

    /// What the card answered to ``wrapAcknowledged(_:route:timeoutMicroseconds:)``'s APDU.
    ///
    /// On the PN532 route the InDataExchange answer `D5 41 Status`: `00` without data is the
    /// ACK; `14` is the NAK (the PN532 reports a MIFARE card's refusal as its MIFARE error, §7.1,
    /// without the NAK's value); `01` is the time-out. Elsewhere the card's 4-bit answer itself.
    ///
    /// - Throws: the errors of ``unwrap(_:route:command:)``;
    ///   ``StorageCardError/unexpectedResponse(instruction:length:)`` for an answer that is no
    ///   4-bit ACK or NAK; ``StorageCardError/rfError(command:route:code:)`` for another status.
    public static func unwrapAcknowledged(_ response: ResponseAPDU, route: StorageRawFrameRoute, command: UInt8)
        throws(StorageCardError) -> StorageRawFrameAcknowledgement
    {
        guard !route.passesFourBitAnswers else {
            let answer = try unwrap(response, route: route, command: command)
            guard answer.count == 1, answer[0] <= 0x0F else {
                throw .unexpectedResponse(instruction: command, length: answer.count)
            }
            return answer[0] == 0x0A ? .ack : .nak(answer[0])
        }
        let (status, data) = try pn532Status(response, answerCode: 0x41, route: route, command: command)
        switch status {
        case 0x00:
            guard data.isEmpty else { throw .unexpectedResponse(instruction: command, length: data.count) }
            return .ack
        case 0x01: throw .rfNoAnswer(command: command, route: route)
        case 0x14: return .nak(nil)
        case let code: throw .rfError(command: command, route: route, code: code)
        }
    }

    /// The PN532's answer `D5 answerCode Status data…` inside the ACR122U's response: the
    /// error code (the status's low 6 bits, UM0701-02 §7.1; 01 is the time-out) and the data.
    private static func pn532Status(
        _ response: ResponseAPDU, answerCode: UInt8, route: StorageRawFrameRoute, command: UInt8
    ) throws(StorageCardError) -> (code: UInt8, data: [UInt8]) {
        // ACR122U: 63 00 when the PN532 itself did not reply (libnfc acr122_pcsc.c).
        if response.statusWord.rawValue == 0x6300 { throw .rfNoAnswer(command: command, route: route) }
        guard response.statusWord.isSuccess else {
            throw .passThroughRefused(command: command, route: route, statusWord: response.statusWord)
        }
        let data = response.data
        guard data.count >= 3, data[0] == 0xD5, data[1] == answerCode else {
            throw .malformedPassThroughAnswer(
                command: command, route: route,
                reason: "\(data.spacedHexString) is no D5 \([answerCode].hexString) status frame")
        }
        return (data[2] & 0x3F, Array(data.dropFirst(3)))
    }

    /// The card's raw answer in the reader's `response` on `route`.
    ///
    /// - Parameters:
    ///   - response: the reader's answer to ``wrap(_:route:timeoutMicroseconds:)``'s APDU.
    ///   - route: the route the command went by.
    ///   - command: the card command's first byte, for the errors.
    /// - Throws: ``StorageCardError/rfNoAnswer(command:route:)`` when the card did not answer
    ///   in time, ``StorageCardError/rfError(command:route:code:)`` for another RF error the
    ///   reader reports, ``StorageCardError/passThroughRefused(command:route:statusWord:)`` when
    ///   the reader refused the wrapper itself, and
    ///   ``StorageCardError/malformedPassThroughAnswer(command:route:reason:)`` for an answer
    ///   that does not follow the route's form.
    public static func unwrap(_ response: ResponseAPDU, route: StorageRawFrameRoute, command: UInt8)
        throws(StorageCardError) -> [UInt8]
    {
        switch route {
        case .pn532InCommunicateThru:
            let (code, data) = try pn532Status(response, answerCode: 0x43, route: route, command: command)
            if code == 0x01 { throw .rfNoAnswer(command: command, route: route) }
            guard code == 0x00 else { throw .rfError(command: command, route: route, code: code) }
            return data
        case .acsDirectTransmit:
            if response.statusWord.rawValue == 0x6300 { throw .rfNoAnswer(command: command, route: route) }
            guard response.statusWord.isSuccess else {
                throw .passThroughRefused(command: command, route: route, statusWord: response.statusWord)
            }
            return response.data
        case .part3TransparentExchange:
            guard response.statusWord.isSuccess else {
                throw .passThroughRefused(command: command, route: route, statusWord: response.statusWord)
            }
            let objects = try dataObjects(response.data, command: command)
            guard let generic = objects.first(where: { $0.tag == 0xC0 })?.value, generic.count == 3 else {
                throw .malformedPassThroughAnswer(
                    command: command, route: route, reason: "no C0 03 generic error object")
            }
            let status = UInt16(generic[1]) << 8 | UInt16(generic[2])
            guard generic[0] == 0x00, status == 0x9000 else {
                // 64 01: "no response / timeout" (the ACR1552U transcript in reference/ccid.md).
                if status == 0x6401 { throw .rfNoAnswer(command: command, route: route) }
                throw .rfError(command: command, route: route, code: generic[2])
            }
            if let responseStatus = objects.first(where: { $0.tag == 0x96 })?.value,
                responseStatus.contains(where: { $0 != 0 })
            {
                throw .rfError(command: command, route: route, code: responseStatus.last ?? 0)
            }
            guard let answer = objects.first(where: { $0.tag == 0x97 })?.value else {
                throw .rfNoAnswer(command: command, route: route)
            }
            return answer
        }
    }

    /// The answer to a session start or end: `C0 03 00 90 00` then `90 00`.
    ///
    /// - Throws: ``StorageCardError/passThroughRefused(command:route:statusWord:)`` when the
    ///   reader refused it (or does not know `FF C2`).
    public static func checkSessionAnswer(_ response: ResponseAPDU, command: UInt8) throws(StorageCardError) {
        let route = StorageRawFrameRoute.part3TransparentExchange
        guard response.statusWord.isSuccess else {
            throw .passThroughRefused(command: command, route: route, statusWord: response.statusWord)
        }
        let objects = try dataObjects(response.data, command: command)
        guard let generic = objects.first(where: { $0.tag == 0xC0 })?.value, generic.count == 3 else {
            throw .malformedPassThroughAnswer(command: command, route: route, reason: "no C0 03 generic error object")
        }
        guard generic == [0x00, 0x90, 0x00] else {
            throw .passThroughRefused(
                command: command, route: route, statusWord: StatusWord(sw1: generic[1], sw2: generic[2]))
        }
    }

    // MARK: - BER-TLV

    static func berLength(_ length: Int) -> [UInt8] {
        length < 0x80 ? [UInt8(length)] : [0x81, UInt8(truncatingIfNeeded: length)]
    }

    /// The response's data objects, one level (tags of one or two bytes, lengths of one to
    /// three bytes).
    static func dataObjects(_ bytes: [UInt8], command: UInt8) throws(StorageCardError) -> [(
        tag: UInt16, value: [UInt8]
    )] {
        let route = StorageRawFrameRoute.part3TransparentExchange
        var objects: [(tag: UInt16, value: [UInt8])] = []
        var index = 0
        while index < bytes.count {
            var tag = UInt16(bytes[index])
            index += 1
            if tag & 0x1F == 0x1F {
                guard index < bytes.count else {
                    throw .malformedPassThroughAnswer(command: command, route: route, reason: "tag cut off")
                }
                tag = tag << 8 | UInt16(bytes[index])
                index += 1
            }
            guard index < bytes.count else {
                throw .malformedPassThroughAnswer(
                    command: command, route: route, reason: "object \(String(tag, radix: 16)) has no length")
            }
            var length = Int(bytes[index])
            index += 1
            if length & 0x80 != 0 {
                let count = length & 0x7F
                guard (1...2).contains(count), index + count <= bytes.count else {
                    throw .malformedPassThroughAnswer(command: command, route: route, reason: "bad BER length")
                }
                length = bytes[index..<index + count].reduce(0) { $0 << 8 | Int($1) }
                index += count
            }
            guard length <= bytes.count - index else {
                throw .malformedPassThroughAnswer(
                    command: command, route: route,
                    reason: "object \(String(tag, radix: 16)) runs \(length) bytes past the answer's end")
            }
            objects.append((tag, Array(bytes[index..<index + length])))
            index += length
        }
        return objects
    }
}
