import CardFlow
import Testing

@testable import CardFlowStorageCards

/// The raw-frame pass-through, byte for byte per route, and the variant table's routes.
@Suite("Storage raw-frame pass-through")
struct StorageRawFrameTests {
    func encoded(_ apdu: CommandAPDU) -> [UInt8] { apdu.encoded() }

    func response(_ hex: String) -> ResponseAPDU {
        let all = bytes(hex)
        return ResponseAPDU(data: Array(all.dropLast(2)), sw1: all[all.count - 2], sw2: all[all.count - 1])
    }

    @Test("the variant table picks each family's route by VID:PID")
    func routes() {
        #expect(
            StorageReaderVariant.lookup(vendorID: 0x072F, productID: 0x2200).rawFrameRoute == .pn532InCommunicateThru)
        for productID: UInt16 in [0x223B, 0x223E, 0x223F] {
            let variant = StorageReaderVariant.lookup(vendorID: 0x072F, productID: productID)
            #expect(variant.rawFrameRoute == .acsDirectTransmit && variant.rawPathAfterAuthentication)
        }
        for (vendorID, productID): (UInt16, UInt16) in [
            (0x04E6, 0x5790), (0x04E6, 0x5591), (0x076B, 0x5422), (0x1234, 1),
        ] {
            let variant = StorageReaderVariant.lookup(vendorID: vendorID, productID: productID)
            #expect(variant.rawFrameRoute == .part3TransparentExchange && !variant.rawPathAfterAuthentication)
        }
    }

    @Test("ACR122U: PN532 InCommunicateThru inside the direct transmit")
    func pn532() throws {
        let apdu = try StorageRawFrameCodec.wrap(bytes("1B FFFFFFFF"), route: .pn532InCommunicateThru)
        #expect(encoded(apdu) == bytes("FF000000 07 D442 1BFFFFFFFF"))
        // nfc-pcsc #36: d5 43 00 PACK 90 00.
        #expect(
            try StorageRawFrameCodec.unwrap(
                response("D5 43 00 12 34 90 00"), route: .pn532InCommunicateThru, command: 0x1B)
                == [0x12, 0x34])
        #expect(throws: StorageCardError.rfNoAnswer(command: 0x1B, route: .pn532InCommunicateThru)) {
            try StorageRawFrameCodec.unwrap(response("D5 43 01 90 00"), route: .pn532InCommunicateThru, command: 0x1B)
        }
        #expect(throws: StorageCardError.rfError(command: 0x30, route: .pn532InCommunicateThru, code: 0x02)) {
            try StorageRawFrameCodec.unwrap(response("D5 43 02 90 00"), route: .pn532InCommunicateThru, command: 0x30)
        }
        #expect(throws: StorageCardError.rfNoAnswer(command: 0x30, route: .pn532InCommunicateThru)) {
            try StorageRawFrameCodec.unwrap(response("63 00"), route: .pn532InCommunicateThru, command: 0x30)
        }
        for malformed in ["D5 90 00", "D5 41 00 90 00", "90 00"] {
            #expect(throws: StorageCardError.self) {
                try StorageRawFrameCodec.unwrap(response(malformed), route: .pn532InCommunicateThru, command: 0x30)
            }
        }
    }

    @Test("ACR122U: commands answered by an ACK go by InDataExchange; its statuses 00, 14, 01")
    func pn532Acknowledged() throws {
        let route = StorageRawFrameRoute.pn532InCommunicateThru
        #expect(!route.passesFourBitAnswers)
        let apdu = try StorageRawFrameCodec.wrapAcknowledged(bytes("A2 04 01020304"), route: route)
        #expect(encoded(apdu) == bytes("FF000000 09 D44001 A204 01020304"))
        #expect(
            try StorageRawFrameCodec.unwrapAcknowledged(response("D5 41 00 90 00"), route: route, command: 0xA2) == .ack
        )
        #expect(
            try StorageRawFrameCodec.unwrapAcknowledged(response("D5 41 14 90 00"), route: route, command: 0xA2)
                == .nak(nil))
        #expect(throws: StorageCardError.rfNoAnswer(command: 0xA2, route: route)) {
            try StorageRawFrameCodec.unwrapAcknowledged(response("D5 41 01 90 00"), route: route, command: 0xA2)
        }
        #expect(throws: StorageCardError.rfError(command: 0xA2, route: route, code: 0x02)) {
            try StorageRawFrameCodec.unwrapAcknowledged(response("D5 41 02 90 00"), route: route, command: 0xA2)
        }
        #expect(throws: StorageCardError.unexpectedResponse(instruction: 0xA2, length: 1)) {
            try StorageRawFrameCodec.unwrapAcknowledged(response("D5 41 00 0A 90 00"), route: route, command: 0xA2)
        }
        for malformed in ["D5 43 00 90 00", "D5 41 90 00"] {
            #expect(throws: StorageCardError.self) {
                try StorageRawFrameCodec.unwrapAcknowledged(response(malformed), route: route, command: 0xA2)
            }
        }
        // The other routes pass 4-bit answers on: the frame as wrap carries it, the nibble back.
        for other in [StorageRawFrameRoute.acsDirectTransmit, .part3TransparentExchange] {
            #expect(other.passesFourBitAnswers)
            #expect(
                try StorageRawFrameCodec.wrapAcknowledged(bytes("A2 04 01020304"), route: other)
                    == StorageRawFrameCodec.wrap(bytes("A2 04 01020304"), route: other))
        }
        let direct = StorageRawFrameRoute.acsDirectTransmit
        #expect(try StorageRawFrameCodec.unwrapAcknowledged(response("0A 90 00"), route: direct, command: 0xA2) == .ack)
        #expect(
            try StorageRawFrameCodec.unwrapAcknowledged(response("05 90 00"), route: direct, command: 0xA2)
                == .nak(0x05))
        #expect(throws: StorageCardError.unexpectedResponse(instruction: 0xA2, length: 2)) {
            try StorageRawFrameCodec.unwrapAcknowledged(response("0A 0A 90 00"), route: direct, command: 0xA2)
        }
    }

    @Test("ACR1252U: the direct transmit carries the frame itself")
    func acsDirect() throws {
        #expect(
            encoded(try StorageRawFrameCodec.wrap(bytes("3004"), route: .acsDirectTransmit)) == bytes("FF00000002 3004")
        )
        #expect(
            try StorageRawFrameCodec.unwrap(response("0A 90 00"), route: .acsDirectTransmit, command: 0xA2) == [0x0A])
        #expect(throws: StorageCardError.rfNoAnswer(command: 0x30, route: .acsDirectTransmit)) {
            try StorageRawFrameCodec.unwrap(response("63 00"), route: .acsDirectTransmit, command: 0x30)
        }
        #expect(
            throws: StorageCardError.passThroughRefused(
                command: 0x30, route: .acsDirectTransmit, statusWord: StatusWord(0x6A81))
        ) {
            try StorageRawFrameCodec.unwrap(response("6A 81"), route: .acsDirectTransmit, command: 0x30)
        }
    }

    @Test("part 3: session start/end and the transceive data objects")
    func part3() throws {
        #expect(encoded(try StorageRawFrameCodec.startTransparentSession()) == bytes("FFC20000 02 8100 00"))
        #expect(encoded(try StorageRawFrameCodec.endTransparentSession()) == bytes("FFC20000 02 8200 00"))
        #expect(
            encoded(try StorageRawFrameCodec.wrap(bytes("60"), route: .part3TransparentExchange))
                == bytes("FFC20001 03 950160 00"))
        #expect(
            encoded(
                try StorageRawFrameCodec.wrap(
                    bytes("3004"), route: .part3TransparentExchange, timeoutMicroseconds: 1_000_000))
                == bytes("FFC20001 0B 5F460440420F00 95023004 00"))
        let long = [UInt8](repeating: 0xAB, count: 0x90)
        #expect(
            encoded(try StorageRawFrameCodec.wrap(long, route: .part3TransparentExchange))
                == bytes("FFC20001 93 958190") + long + [0x00])
        try StorageRawFrameCodec.checkSessionAnswer(response("C0 03 00 90 00 90 00"), command: 0x81)
        #expect(
            try StorageRawFrameCodec.unwrap(
                response("C0 03 00 90 00 92 01 00 96 02 00 00 97 04 00 04 04 02 90 00"),
                route: .part3TransparentExchange, command: 0x60) == bytes("00040402"))
        // ACR1552U transcript: C0 03 01 64 01 when the card does not answer in time.
        #expect(throws: StorageCardError.rfNoAnswer(command: 0x30, route: .part3TransparentExchange)) {
            try StorageRawFrameCodec.unwrap(
                response("C0 03 01 64 01 90 00"), route: .part3TransparentExchange, command: 0x30)
        }
        #expect(throws: StorageCardError.rfError(command: 0x30, route: .part3TransparentExchange, code: 0x86)) {
            try StorageRawFrameCodec.unwrap(
                response("C0 03 01 69 86 90 00"), route: .part3TransparentExchange, command: 0x30)
        }
        // Hostile or cut answers: typed errors, no trap.
        for malformed in [
            "97 04 00 90 00", "C0 03 00 90 00 97 05 01 02 90 00", "C0 90 00", "C0 03 00 90 00 97 82 90 00",
            "C0 03 00 90 00 1F 90 00", "90 00",
        ] {
            #expect(throws: StorageCardError.self) {
                try StorageRawFrameCodec.unwrap(response(malformed), route: .part3TransparentExchange, command: 0x30)
            }
        }
        #expect(throws: StorageCardError.self) {
            try StorageRawFrameCodec.checkSessionAnswer(response("C0 03 01 6A 81 90 00"), command: 0x81)
        }
        #expect(throws: StorageCardError.self) {
            try StorageRawFrameCodec.checkSessionAnswer(response("6D 00"), command: 0x81)
        }
    }

    @Test("frames that do not fit a route are refused before anything is sent")
    func lengths() {
        for route in StorageRawFrameRoute.allCases {
            #expect(throws: StorageCardError.self) { try StorageRawFrameCodec.wrap([], route: route) }
            #expect(throws: StorageCardError.self) {
                try StorageRawFrameCodec.wrap([UInt8](repeating: 0, count: route.maxFrameLength + 1), route: route)
            }
            #expect(
                (try? StorageRawFrameCodec.wrap([UInt8](repeating: 0, count: route.maxFrameLength), route: route))
                    != nil)
        }
    }

    @Test("the transport opens the part 3 session once, and ends it")
    func transportSession() async throws {
        let channel = RecordingChannel(answers: [
            response("C0 03 00 90 00 90 00"), response("C0 03 00 90 00 97 01 0A 90 00"),
            response("C0 03 00 90 00 97 02 AB CD 90 00"), response("C0 03 00 90 00 90 00"),
        ])
        let transport = StorageRawFrameTransport(channel: channel, route: .part3TransparentExchange)
        #expect(try await transport.transceive(bytes("A2 04 01020304")) == [0x0A])
        #expect(try await transport.transceive(bytes("1B 01020304"), redact: true) == [0xAB, 0xCD])
        try await transport.endSession()
        #expect(await transport.sessionOpen == false)
        #expect(
            await channel.sent == [
                bytes("FFC20000 02 8100 00"), bytes("FFC20001 08 9506A20401020304 00"),
                bytes("FFC20001 07 95051B01020304 00"), bytes("FFC20000 02 8200 00"),
            ])
    }
}

/// A channel that records what it is sent and answers from a list.
actor RecordingChannel: CardChannel {
    private var answers: [ResponseAPDU]
    private(set) var sent: [[UInt8]] = []

    init(answers: [ResponseAPDU]) { self.answers = answers }

    func transmit(_ command: CommandAPDU) async throws -> ResponseAPDU {
        sent.append(command.encoded())
        guard !answers.isEmpty else { return ResponseAPDU(sw1: 0x6F, sw2: 0x00) }
        return answers.removeFirst()
    }
}
