import CardFlow
import Foundation
import Logging
import Testing

@Suite("TracingCardChannel: trace lines, metadata, redaction, cost when off")
struct TracingCardChannelTests {
    static let select = "00A4040007A000000247100100"
    static let fci = "6F0D830270018407A0000002471001"

    @Test func logsTheFamiliarThreeLinesWithMetadata() async throws {
        let log = CapturedLog()
        let base = try ExchangeScriptChannel(answers: [Self.fci + "9000"])
        let channel = TracingCardChannel(wrapping: base, logger: log.logger(metadata: ["reader": "sim"]))
        let response = try await channel.transmit(CommandAPDU(hex: Self.select))
        #expect(response == (try ResponseAPDU(hex: Self.fci + "9000")))
        #expect(
            log.all == [
                CapturedLogRecord(
                    level: .trace, message: ">>> Send apdu 00 A4 04 00 07 A0 00 00 02 47 10 01 00",
                    metadata: ["reader": "sim", "apdu.ins": "A4"]),
                CapturedLogRecord(
                    level: .trace, message: "SW1-SW2: 90, 00",
                    metadata: ["reader": "sim", "apdu.ins": "A4", "apdu.sw": "9000"]),
                CapturedLogRecord(
                    level: .trace, message: "APDU Response: 6F 0D 83 02 70 01 84 07 A0 00 00 02 47 10 01",
                    metadata: ["reader": "sim", "apdu.ins": "A4", "apdu.sw": "9000", "apdu.length": "15"]),
            ])
        #expect(await base.sent == [try CommandAPDU(hex: Self.select)])
    }

    /// The channel rewrites its records' metadata in place from one APDU to the next; a handler
    /// that keeps the records' dictionaries must still hold each APDU's own values, and the
    /// redaction mark of one record must not stay on later ones. Both ways a handler can take
    /// them: copied out at once, or kept as given. A value the previous APDU had is not written
    /// again, so the later APDUs change one value at a time (the status word, then the
    /// instruction, then nothing) and the last changes the length alone.
    @Test(arguments: [false, true])
    func recordsKeepTheirOwnMetadata(keepingEvents: Bool) async throws {
        let log = CapturedLog(keepingEvents: keepingEvents)
        let channel = TracingCardChannel(
            wrapping: try ExchangeScriptChannel(answers: [
                Self.fci + "9000", "6A82", "0102 6300", "0304 9000", "0506 9000", "0506 9000", "9000",
            ]),
            logger: log.logger(), redaction: .instruction(0x20))
        _ = try await channel.transmit(CommandAPDU(hex: Self.select))
        _ = try await channel.transmit(CommandAPDU(hex: "0020008104 31323334"))
        _ = try await channel.transmit(CommandAPDU(hex: "00B0000002"))
        _ = try await channel.transmit(CommandAPDU(hex: "00B0000202"))
        _ = try await channel.transmit(CommandAPDU(hex: "00CA010102"))
        _ = try await channel.transmit(CommandAPDU(hex: "00CA010102"))
        _ = try await channel.transmit(CommandAPDU(hex: "00CA010200"))
        // One APDU's three records: send, status, response.
        func records(_ ins: String, _ sw: String, _ length: String, sendRedacted: Bool = false) -> [[String: String]] {
            [
                sendRedacted ? ["apdu.ins": ins, "apdu.redacted": "true"] : ["apdu.ins": ins],
                ["apdu.ins": ins, "apdu.sw": sw],
                ["apdu.ins": ins, "apdu.sw": sw, "apdu.length": length],
            ]
        }
        let expected =
            records("A4", "9000", "15") + records("20", "6A82", "0", sendRedacted: true) + records("B0", "6300", "2")
            + records("B0", "9000", "2") + records("CA", "9000", "2") + records("CA", "9000", "2")
            + records("CA", "9000", "0")
        #expect(log.all.map(\.metadata) == expected)
        #expect(log.keptEventMetadata == (keepingEvents ? expected : []))
        #expect(log.messages[3] == ">>> Send apdu 00 20 00 81 04 ** ** ** **")
    }

    /// Every byte value in both lines, against a formatter written independently of the trace's
    /// table (String(format:), per byte), lines of one byte up to 255 bytes of data.
    @Test(arguments: [1, 2, 16, 255])
    func everyByteValueIsItsTwoUpperCaseDigits(length: Int) async throws {
        let log = CapturedLog()
        let values = (0..<256).map { UInt8($0) }
        for start in stride(from: 0, to: 256, by: length) {
            let data = Array(values[start..<min(256, start + length)])
            let answer = data.map { String(format: "%02X", $0) }.joined() + "9000"
            let channel = TracingCardChannel(
                wrapping: try ExchangeScriptChannel(answers: [answer]), logger: log.logger())
            let command = try CommandAPDU(cla: 0x80, ins: 0xDA, p1: 0x01, p2: 0xFE, data: data)
            _ = try await channel.transmit(command)
            let spaced = data.map { String(format: "%02X", $0) }.joined(separator: " ")
            let lines = log.messages.suffix(3)
            #expect(
                Array(lines) == [
                    ">>> Send apdu 80 DA 01 FE " + String(format: "%02X ", data.count) + spaced,
                    "SW1-SW2: 90, 00",
                    "APDU Response: " + spaced,
                ])
        }
    }

    /// Lengths past a short APDU's 256 (an extended answer) and every status word still read as
    /// they would formatted anew (the channel reads short lengths and hex digits from tables).
    @Test func longAnswersAndUnusualStatusWords() async throws {
        let log = CapturedLog()
        let long = String(repeating: "A5", count: 300)
        let channel = TracingCardChannel(
            wrapping: try ExchangeScriptChannel(answers: [long + "6283", "0102" + "9F10", long + "6283"]),
            logger: log.logger())
        _ = try await channel.transmit(CommandAPDU(hex: "00B0000000012C"))
        _ = try await channel.transmit(CommandAPDU(hex: "80CA9F7F00"))
        _ = try await channel.transmit(CommandAPDU(hex: "00B0000000012C"))
        let answers = log.all.filter { $0.message.hasPrefix("APDU Response") }.map(\.metadata)
        #expect(
            answers == [
                ["apdu.ins": "B0", "apdu.sw": "6283", "apdu.length": "300"],
                ["apdu.ins": "CA", "apdu.sw": "9F10", "apdu.length": "2"],
                ["apdu.ins": "B0", "apdu.sw": "6283", "apdu.length": "300"],
            ])
    }

    /// Every instruction byte and every SW1 (each with a different SW2) in the records' metadata,
    /// against Foundation's `String(format:)`, a formatter the channel's tables do not use.
    @Test func everyInstructionAndStatusWordAgainstAnIndependentFormatter() async throws {
        let log = CapturedLog()
        let words = (0..<256).map { UInt16($0) << 8 | UInt16(255 - $0) }
        let channel = TracingCardChannel(
            wrapping: try ExchangeScriptChannel(answers: words.map { String(format: "%04X", $0) }),
            logger: log.logger())
        for ins in 0..<256 {
            _ = try await channel.transmit(CommandAPDU(cla: 0x80, ins: UInt8(ins), p1: 0, p2: 0))
        }
        let answers = log.all.filter { $0.message.hasPrefix("APDU Response") }.map(\.metadata)
        #expect(answers.map { $0["apdu.ins"] } == (0..<256).map { String(format: "%02X", $0) })
        #expect(answers.map { $0["apdu.sw"] } == words.map { String(format: "%04X", $0) })
    }

    @Test func answersWithoutDataSayNoData() async throws {
        let log = CapturedLog()
        let channel = TracingCardChannel(wrapping: try ExchangeScriptChannel(answers: ["6A82"]), logger: log.logger())
        _ = try await channel.transmit(CommandAPDU(hex: "00A4020C020101"))
        #expect(log.messages == [">>> Send apdu 00 A4 02 0C 02 01 01", "SW1-SW2: 6A, 82", "APDU Response: (no data)"])
        #expect(log.all[2].metadata["apdu.sw"] == "6A82")
        #expect(log.all[2].metadata["apdu.length"] == "0")
    }

    @Test func redactsTheDataOfAnInstruction() async throws {
        let log = CapturedLog()
        let base = try ExchangeScriptChannel(answers: ["9100", "9000"])
        let channel = TracingCardChannel(wrapping: base, logger: log.logger(), redaction: .instruction(0xC4))
        // DESFire ChangeKey, ISO-wrapped: key number 01, then 16 bytes of cryptogram.
        let changeKey = try CommandAPDU(cla: 0x90, ins: 0xC4, p1: 0, p2: 0, data: [0x01] + Array(0xA0...0xAF), le: 256)
        _ = try await channel.transmit(changeKey)
        _ = try await channel.transmit(CommandAPDU(hex: "00A4020C020101"))
        #expect(
            log.messages == [
                ">>> Send apdu 90 C4 00 00 11 " + Array(repeating: "**", count: 17).joined(separator: " ") + " 00",
                "SW1-SW2: 91, 00",
                "APDU Response: (no data)",
                ">>> Send apdu 00 A4 02 0C 02 01 01",
                "SW1-SW2: 90, 00",
                "APDU Response: (no data)",
            ])
        #expect(log.all[0].metadata["apdu.redacted"] == "true")
        #expect(log.all[3].metadata["apdu.redacted"] == nil)
        // The channel below still gets the real bytes.
        #expect(await base.sent.first == changeKey)
    }

    @Test func redactsChosenRangesOfCommandAndResponseData() async throws {
        let log = CapturedLog()
        let redaction = APDURedaction { command in
            command.ins == 0x88 ? .init(commandData: [1..<3], responseData: [0..<2, 4..<100]) : .none
        }
        let channel = TracingCardChannel(
            wrapping: try ExchangeScriptChannel(answers: ["1122334455669000"]), logger: log.logger(),
            redaction: redaction)
        _ = try await channel.transmit(CommandAPDU(hex: "00880000 04 AABBCCDD 00"))
        #expect(
            log.messages == [
                ">>> Send apdu 00 88 00 00 04 AA ** ** DD 00",
                "SW1-SW2: 90, 00",
                "APDU Response: ** ** 33 44 ** **",
            ])
        #expect(log.all[2].metadata["apdu.redacted"] == "true")
    }

    @Test func redactionFindsTheDataBehindExtendedLengthFields() async throws {
        let log = CapturedLog()
        let channel = TracingCardChannel(
            wrapping: try ExchangeScriptChannel(answers: ["9000"]), logger: log.logger(),
            redaction: APDURedaction { _ in .init(commandData: [0..<1, 299..<300]) })
        let command = try CommandAPDU(cla: 0, ins: 0xDA, p1: 0, p2: 0, data: Array(repeating: 0x5A, count: 300))
        _ = try await channel.transmit(command)
        let expected = ["00", "DA", "00", "00", "00", "01", "2C", "**"] + Array(repeating: "5A", count: 298) + ["**"]
        #expect(log.messages.first == ">>> Send apdu " + expected.joined(separator: " "))
    }

    @Test func combinedRedactionsHideWhatEitherHides() async throws {
        let log = CapturedLog()
        let redaction = APDURedaction.instruction(0x20).combined(
            with: .instruction(0xCA, commandData: false, responseData: true))
        let channel = TracingCardChannel(
            wrapping: try ExchangeScriptChannel(answers: ["9000", "C0FFEE9000"]), logger: log.logger(),
            redaction: redaction)
        _ = try await channel.transmit(CommandAPDU(hex: "0020008104 31323334"))
        _ = try await channel.transmit(CommandAPDU(hex: "00CA0101 00"))
        #expect(
            log.messages == [
                ">>> Send apdu 00 20 00 81 04 ** ** ** **", "SW1-SW2: 90, 00", "APDU Response: (no data)",
                ">>> Send apdu 00 CA 01 01 00", "SW1-SW2: 90, 00", "APDU Response: ** ** **",
            ])
        #expect(
            APDURedaction.instruction(0x20, cla: 0x80).ranges(for: try CommandAPDU(hex: "0020008104 31323334")).isEmpty)
    }

    @Test func getResponseRoundsInheritTheResponseRedaction() async throws {
        let log = CapturedLog()
        // Response bytes 2..<6 of INS CA are secret; the card sends 3 bytes, then 61 05.
        let redaction = APDURedaction { command in command.ins == 0xCA ? .init(responseData: [2..<6]) : .none }
        let base = try ExchangeScriptChannel(answers: ["010203 6105", "0405060708 9000", "AABB 9000"])
        let channel = TracingCardChannel(wrapping: base, logger: log.logger(), redaction: redaction)
        let response = try await channel.send(CommandAPDU(hex: "00CA0101 00"))
        #expect(response.data == [1, 2, 3, 4, 5, 6, 7, 8])
        // A GET RESPONSE that continues nothing is not redacted.
        _ = try await channel.transmit(CommandAPDU(hex: "00C00000 02"))
        #expect(
            log.messages == [
                ">>> Send apdu 00 CA 01 01 00", "SW1-SW2: 61, 05", "APDU Response: 01 02 **",
                ">>> Send apdu 00 C0 00 00 05", "SW1-SW2: 90, 00", "APDU Response: ** ** ** 07 08",
                ">>> Send apdu 00 C0 00 00 02", "SW1-SW2: 90, 00", "APDU Response: AA BB",
            ])
    }

    @Test func costsNothingWhenTraceIsOff() async throws {
        let log = CapturedLog(level: .debug)
        let asked = CallCounter()
        let redaction = APDURedaction { _ in
            asked.increment()
            return .none
        }
        let channel = TracingCardChannel(
            wrapping: try ExchangeScriptChannel(answers: ["9000", "6A82"]), logger: log.logger(), redaction: redaction)
        _ = try await channel.transmit(CommandAPDU(hex: Self.select))
        _ = try await channel.transmit(CommandAPDU(hex: Self.select))
        #expect(log.all.isEmpty)
        #expect(asked.value == 0)
    }

    @Test func aGetResponseAfterUntracedExchangesIsHiddenWhole() async throws {
        let log = CapturedLog(level: .info)
        let channel = TracingCardChannel(
            wrapping: try ExchangeScriptChannel(answers: ["01 6102", "0203 9000"]), logger: log.logger(),
            redaction: .instruction(0xCA, commandData: false, responseData: true))
        _ = try await channel.transmit(CommandAPDU(hex: "00CA0101 00"))
        // Tracing switches on between the command and its GET RESPONSE.
        log.logLevel = .trace
        _ = try await channel.transmit(CommandAPDU(hex: "00C00000 02"))
        #expect(log.messages == [">>> Send apdu 00 C0 00 00 02", "SW1-SW2: 90, 00", "APDU Response: ** **"])
    }

    @Test func logsFailedExchangesAndRethrows() async throws {
        let log = CapturedLog()
        let channel = TracingCardChannel(
            wrapping: ExchangeScriptChannel([.fail(SimulatedTransportError())]), logger: log.logger())
        await #expect(throws: SimulatedTransportError.self) {
            try await channel.transmit(CommandAPDU(hex: Self.select))
        }
        #expect(log.all.count == 2)
        #expect(
            log.all.last
                == CapturedLogRecord(
                    level: .trace, message: "APDU exchange failed: reader unplugged",
                    metadata: ["apdu.ins": "A4", "error.type": "SimulatedTransportError"]))
    }
}
