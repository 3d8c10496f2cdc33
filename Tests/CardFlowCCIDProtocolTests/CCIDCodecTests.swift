import CardFlowSimulator
import Testing

@testable import CardFlowCCIDProtocol

/// Byte-exact frames for every CCID message (CCID rev 1.1 section 6; reference ccid.md 2.2-2.8).
@Suite("CCID message codec")
struct CCIDCodecTests {
    static let commandVectors: [(CCIDCommand, [UInt8])] = [
        (
            CCIDCommand(slot: 0, sequence: 7, kind: .iccPowerOn(.automatic)),
            [0x62, 0, 0, 0, 0, 0x00, 0x07, 0x00, 0x00, 0x00]
        ),
        (
            CCIDCommand(slot: 1, sequence: 2, kind: .iccPowerOn(.volts1_8)),
            [0x62, 0, 0, 0, 0, 0x01, 0x02, 0x03, 0x00, 0x00]
        ),
        (CCIDCommand(slot: 0, sequence: 8, kind: .iccPowerOff), [0x63, 0, 0, 0, 0, 0x00, 0x08, 0, 0, 0]),
        (CCIDCommand(slot: 0, sequence: 0xFF, kind: .getSlotStatus), [0x65, 0, 0, 0, 0, 0x00, 0xFF, 0, 0, 0]),
        (
            CCIDCommand(
                slot: 0, sequence: 1,
                kind: .xfrBlock(blockWaitingTimeMultiplier: 0, levelParameter: 0, data: [0x00, 0xA4, 0x04, 0x00])),
            [0x6F, 0x04, 0, 0, 0, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0xA4, 0x04, 0x00]
        ),
        (
            CCIDCommand(
                slot: 0, sequence: 3, kind: .xfrBlock(blockWaitingTimeMultiplier: 2, levelParameter: 0x0010, data: [])),
            [0x6F, 0, 0, 0, 0, 0x00, 0x03, 0x02, 0x10, 0x00]
        ),
        (CCIDCommand(slot: 0, sequence: 4, kind: .getParameters), [0x6C, 0, 0, 0, 0, 0, 4, 0, 0, 0]),
        (CCIDCommand(slot: 0, sequence: 5, kind: .resetParameters), [0x6D, 0, 0, 0, 0, 0, 5, 0, 0, 0]),
        (
            CCIDCommand(slot: 0, sequence: 6, kind: .setParameters(.defaultT1)),
            [0x61, 7, 0, 0, 0, 0, 6, 0x01, 0, 0, 0x11, 0x10, 0x00, 0x4D, 0x00, 0x20, 0x00]
        ),
        (
            CCIDCommand(slot: 0, sequence: 6, kind: .setParameters(.defaultT0)),
            [0x61, 5, 0, 0, 0, 0, 6, 0x00, 0, 0, 0x11, 0x00, 0x00, 0x0A, 0x00]
        ),
        (
            CCIDCommand(slot: 0, sequence: 9, kind: .escape([0xFF, 0x00, 0x48, 0x00, 0x00])),
            [0x6B, 5, 0, 0, 0, 0, 9, 0, 0, 0, 0xFF, 0x00, 0x48, 0x00, 0x00]
        ),
        (CCIDCommand(slot: 0, sequence: 10, kind: .iccClock(clockCommand: 1)), [0x6E, 0, 0, 0, 0, 0, 10, 1, 0, 0]),
        (
            CCIDCommand(slot: 0, sequence: 11, kind: .t0APDU(changes: 3, classGetResponse: 0xA0, classEnvelope: 0xB0)),
            [0x6A, 0, 0, 0, 0, 0, 11, 3, 0xA0, 0xB0]
        ),
        (
            CCIDCommand(
                slot: 0, sequence: 12,
                kind: .secure(blockWaitingTimeMultiplier: 0, levelParameter: 0, data: [0x00, 0x1E])),
            [0x69, 2, 0, 0, 0, 0, 12, 0, 0, 0, 0x00, 0x1E]
        ),
        (CCIDCommand(slot: 0, sequence: 13, kind: .mechanical(function: 2)), [0x71, 0, 0, 0, 0, 0, 13, 2, 0, 0]),
        (CCIDCommand(slot: 0, sequence: 14, kind: .abort), [0x72, 0, 0, 0, 0, 0, 14, 0, 0, 0]),
        (
            CCIDCommand(
                slot: 0, sequence: 15, kind: .setDataRateAndClockFrequency(clockFrequency: 4000, dataRate: 10752)),
            [0x73, 8, 0, 0, 0, 0, 15, 0, 0, 0, 0xA0, 0x0F, 0, 0, 0x00, 0x2A, 0, 0]
        ),
    ]

    @Test("every command encodes byte-exact and decodes back", arguments: 0..<commandVectors.count)
    func commandVector(_ index: Int) throws {
        let (command, bytes) = Self.commandVectors[index]
        #expect(command.encoded() == bytes)
        #expect(try CCIDCommand(decoding: bytes) == command)
    }

    /// The driver's kept buffer: whatever it held before (longer, shorter, shared with another
    /// array), `encode(into:)` leaves exactly the message in it and never changes the other array.
    @Test("encoding into a reused buffer gives the same bytes", arguments: 0..<commandVectors.count)
    func commandIntoReusedBuffer(_ index: Int) {
        let (command, bytes) = Self.commandVectors[index]
        var buffer = [UInt8](repeating: 0xEE, count: 300)
        command.encode(into: &buffer)
        #expect(buffer == bytes)
        let shared = buffer
        CCIDCommand(slot: 1, sequence: 9, kind: .iccPowerOff).encode(into: &buffer)
        #expect(buffer == [0x63, 0, 0, 0, 0, 0x01, 0x09, 0, 0, 0])
        #expect(shared == bytes)
        command.encode(into: &buffer)
        #expect(buffer == bytes)
    }

    /// The APDU-level path's framing (issue 40): an XfrBlock framed around its own data, and the
    /// simulated reader's decoding that takes the data out of the frame, give the vectors' bytes
    /// and commands; every other message frames as ``CCIDCommand/encoded()`` does.
    @Test(
        "framing around the data and decoding out of the frame match the vectors", arguments: 0..<commandVectors.count)
    func commandFramedInPlace(_ index: Int) throws {
        let (command, bytes) = Self.commandVectors[index]
        #expect(command.frameAroundTransferData() == bytes)
        #expect(try CCIDCommand(decodingLeavingTransferData: bytes) == Self.leavingTransferData(command))
        if case .xfrBlock(_, _, let data) = command.kind { #expect(Array(bytes[ccidHeaderLength...]) == data) }
    }

    /// What ``CCIDCommand/init(decodingLeavingTransferData:)`` gives for `command`: an XfrBlock
    /// without its data (that stays in the frame), anything else unchanged.
    static func leavingTransferData(_ command: CCIDCommand) -> CCIDCommand {
        guard case .xfrBlock(let multiplier, let level, _) = command.kind else { return command }
        return CCIDCommand(
            slot: command.slot, sequence: command.sequence,
            kind: .xfrBlock(blockWaitingTimeMultiplier: multiplier, levelParameter: level, data: []))
    }

    /// With room in front or none, shared or not, the frame is the same, and the caller's array
    /// (still held here) is never changed under it.
    @Test func framingAroundDataNeverChangesTheCallersArray() {
        var roomy: [UInt8] = []
        roomy.reserveCapacity(64)
        roomy += [0x00, 0xB0, 0x00, 0x00, 0x02]
        let tight: [UInt8] = [0x00, 0xB0, 0x00, 0x00, 0x02]
        let expected: [UInt8] = [0x6F, 5, 0, 0, 0, 0x01, 0x2A, 0x00, 0x00, 0x00, 0x00, 0xB0, 0x00, 0x00, 0x02]
        for data in [roomy, tight] {
            let command = CCIDCommand(
                slot: 1, sequence: 0x2A, kind: .xfrBlock(blockWaitingTimeMultiplier: 0, levelParameter: 0, data: data))
            #expect(command.frameAroundTransferData() == expected)
            #expect(data == tight)
        }
        // A 65,544-byte extended APDU: dwLength needs three bytes.
        let long = [UInt8](repeating: 0x5A, count: 65_544)
        let frame = CCIDCommand(
            slot: 0, sequence: 0, kind: .xfrBlock(blockWaitingTimeMultiplier: 0, levelParameter: 1, data: long)
        ).frameAroundTransferData()
        #expect(Array(frame.prefix(10)) == [0x6F, 0x08, 0x00, 0x01, 0x00, 0, 0, 0, 0x01, 0x00])
        #expect(frame.count == 65_554 && frame.dropFirst(10).allSatisfy { $0 == 0x5A })
    }

    /// A malformed message is refused with the error ``CCIDCommand/init(decoding:)`` gives (the
    /// reader still has the frame to answer from its header).
    @Test func decodingAMalformedFrameLeavingItsDataFailsAsDecoding() {
        for malformed: [UInt8] in [
            [0x6F, 4, 0, 0, 0, 0, 1, 0, 0, 0, 0x00, 0xA4], // dwLength 4, 2 bytes follow
            [0x6F, 0, 0], // truncated header
            [0x80, 0, 0, 0, 0, 0, 1, 0, 0, 0], // a response type
            [0x62, 0, 0, 0, 0, 0, 0, 9, 0, 0], // IccPowerOn with bPowerSelect 9
        ] {
            let error = #expect(throws: CCIDFrameError.self) {
                try CCIDCommand(decodingLeavingTransferData: malformed)
            }
            let expected = #expect(throws: CCIDFrameError.self) { try CCIDCommand(decoding: malformed) }
            #expect(error == expected)
        }
    }

    static let responseVectors: [(CCIDResponse, [UInt8])] = [
        // DESFire ATR through an ACR122U-like reader.
        (
            CCIDResponse(
                slot: 0, sequence: 0, state: .init(rawValue: 0),
                kind: .dataBlock(chainParameter: 0, data: [0x3B, 0x81, 0x80, 0x01, 0x80, 0x80])),
            [0x80, 6, 0, 0, 0, 0, 0, 0x00, 0x00, 0x00, 0x3B, 0x81, 0x80, 0x01, 0x80, 0x80]
        ),
        // Identiv uTrust 3700 F with no card (LudovicRousseau/PCSC#66): 81 00000000 00 00 42 FE 01.
        (
            CCIDResponse(
                slot: 0, sequence: 0, state: .init(rawValue: 0x42), errorCode: 0xFE, kind: .slotStatus(clockStatus: 1)),
            [0x81, 0, 0, 0, 0, 0, 0, 0x42, 0xFE, 0x01]
        ),
        (
            CCIDResponse(slot: 0, sequence: 3, state: .init(rawValue: 0), kind: .parameters(.defaultT1)),
            [0x82, 7, 0, 0, 0, 0, 3, 0, 0, 0x01, 0x11, 0x10, 0x00, 0x4D, 0x00, 0x20, 0x00]
        ),
        (
            CCIDResponse(slot: 0, sequence: 4, state: .init(rawValue: 0), kind: .escape(Array("ACR122U207".utf8))),
            [0x83, 10, 0, 0, 0, 0, 4, 0, 0, 0] + Array("ACR122U207".utf8)
        ),
        (
            CCIDResponse(
                slot: 0, sequence: 5, state: .init(rawValue: 0),
                kind: .dataRateAndClockFrequency(clockFrequency: 4000, dataRate: 106_000)),
            [0x84, 8, 0, 0, 0, 0, 5, 0, 0, 0, 0xA0, 0x0F, 0, 0, 0x10, 0x9E, 0x01, 0x00]
        ),
        // Time extension: bStatus 0x80, bError is the multiplier.
        (
            CCIDResponse(
                slot: 0, sequence: 6, state: .init(rawValue: 0x80), errorCode: 2,
                kind: .dataBlock(chainParameter: 0, data: [])),
            [0x80, 0, 0, 0, 0, 0, 6, 0x80, 0x02, 0x00]
        ),
    ]

    @Test("every response encodes byte-exact and decodes back", arguments: 0..<responseVectors.count)
    func responseVector(_ index: Int) throws {
        let (response, bytes) = Self.responseVectors[index]
        #expect(response.encoded() == bytes)
        #expect(try CCIDResponse(decoding: bytes) == response)
    }

    /// A reader writing into storage the host lent (``USBBulkInRead/storage``): whatever the
    /// storage held, `encode(into:)` leaves exactly the message, in that storage when it is large
    /// enough and not shared, and never changes an array that shares it.
    @Test("encoding a response into lent storage gives the same bytes", arguments: 0..<responseVectors.count)
    func responseIntoLentStorage(_ index: Int) {
        let (response, bytes) = Self.responseVectors[index]
        var storage = [UInt8](repeating: 0xEE, count: 300)
        let address = Self.address(of: storage)
        response.encode(into: &storage)
        #expect(storage == bytes)
        #expect(Self.address(of: storage) == address)
        let shared = storage
        CCIDResponse(
            slot: 0, sequence: 1, state: .init(icc: .presentActive, command: .processed),
            kind: .dataBlock(chainParameter: 0, data: [0x90, 0x00])
        ).encode(into: &storage)
        #expect(storage == [0x80, 0x02, 0, 0, 0, 0, 0x01, 0, 0, 0, 0x90, 0x00])
        #expect(shared == bytes)
        var short: [UInt8] = [0xEE]
        response.encode(into: &short)
        #expect(short == bytes)
    }

    static func address(of bytes: [UInt8]) -> UInt? {
        bytes.withUnsafeBufferPointer { $0.baseAddress.map { UInt(bitPattern: $0) } }
    }

    @Test func slotStateAndErrorsAreTyped() throws {
        let noCard = try CCIDResponse(decoding: [0x81, 0, 0, 0, 0, 0, 0, 0x42, 0xFE, 0x01])
        #expect(noCard.state.icc == .absent)
        #expect(noCard.state.command == .failed)
        #expect(noCard.slotError == .iccMute)
        // ACR122U leaves 0x81 in bError on success: it must not read as an error.
        let acr = try CCIDResponse(decoding: [0x80, 2, 0, 0, 0, 0, 0, 0x00, 0x81, 0x00, 0x90, 0x00])
        #expect(acr.slotError == nil)
        #expect(CCIDSlotError(rawValue: 0x05) == .badParameter(offset: 5))
        #expect(CCIDSlotError(rawValue: 0xE0) == .slotBusy)
        #expect(CCIDSlotError(rawValue: 0x00) == .commandNotSupported)
        #expect(CCIDSlotError(rawValue: 0xBB) == .vendorSpecific(0xBB))
        for raw in UInt8.min...UInt8.max { #expect(CCIDSlotError(rawValue: raw).rawValue == raw) }
    }

    @Test func malformedFramesGiveTypedErrors() {
        #expect(throws: CCIDFrameError.truncatedHeader(received: 3)) { try CCIDResponse(decoding: [0x80, 0, 0]) }
        #expect(throws: CCIDFrameError.lengthMismatch(declared: 4, received: 2)) {
            try CCIDResponse(decoding: [0x80, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0x90, 0x00])
        }
        #expect(throws: CCIDFrameError.unknownMessageType(0x62)) {
            try CCIDResponse(decoding: [0x62, 0, 0, 0, 0, 0, 0, 0, 0, 0])
        }
        #expect(throws: CCIDFrameError.unknownMessageType(0x99)) {
            try CCIDCommand(decoding: [0x99, 0, 0, 0, 0, 0, 0, 0, 0, 0])
        }
        #expect(throws: CCIDFrameError.invalidPayloadLength(.slotStatus, length: 1, expected: "0")) {
            try CCIDResponse(decoding: [0x81, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0xAA])
        }
        #expect(throws: CCIDFrameError.invalidField(.iccPowerOn, offset: 7, value: 9)) {
            try CCIDCommand(decoding: [0x62, 0, 0, 0, 0, 0, 0, 9, 0, 0])
        }
        #expect(throws: CCIDFrameError.invalidPayloadLength(.setParameters, length: 3, expected: "7 for T=1")) {
            try CCIDCommand(decoding: [0x61, 3, 0, 0, 0, 0, 0, 1, 0, 0, 1, 2, 3])
        }
    }

    @Test func randomBytesNeverCrashTheDecoders() {
        var random = SeededRandom(seed: 42)
        var decoded = 0
        for _ in 0..<20_000 {
            let length = Int(random.next() % 24)
            var bytes = (0..<length).map { _ in UInt8(truncatingIfNeeded: random.next()) }
            // Half the time make the header consistent so deeper paths run.
            if bytes.count >= 10, random.next() % 2 == 0 {
                let payload = bytes.count - 10
                bytes[1] = UInt8(payload); bytes[2] = 0; bytes[3] = 0; bytes[4] = 0
                bytes[0] = [0x80, 0x81, 0x82, 0x83, 0x84, 0x62, 0x6F, 0x61][Int(random.next() % 8)]
            }
            if (try? CCIDResponse(decoding: bytes)) != nil { decoded += 1 }
            _ = try? CCIDCommand(decoding: bytes)
            // Decoding that leaves an XfrBlock's data in the frame agrees with decoding a copy
            // (less that data), and fails the same way.
            #expect(
                (try? CCIDCommand(decodingLeavingTransferData: bytes))
                    == (try? CCIDCommand(decoding: bytes)).map(Self.leavingTransferData))
            _ = try? CCIDInterruptMessage(decoding: bytes, slotCount: Int(random.next() % 5) + 1)
        }
        #expect(decoded > 0)
    }

    @Test func interruptMessages() throws {
        #expect(
            try CCIDInterruptMessage(decoding: [0x50, 0x03], slotCount: 1)
                == .slotChange([.init(slot: 0, cardPresent: true, changed: true)]))
        #expect(
            try CCIDInterruptMessage(decoding: [0x50, 0x02], slotCount: 1)
                == .slotChange([.init(slot: 0, cardPresent: false, changed: true)]))
        // Slot 5 lives in the second byte, bits 2-3.
        let six = try CCIDInterruptMessage(decoding: [0x50, 0x00, 0x0C], slotCount: 6)
        guard case .slotChange(let changes) = six else { Issue.record("not a slot change"); return }
        #expect(changes[5] == .init(slot: 5, cardPresent: true, changed: true))
        #expect(changes[4] == .init(slot: 4, cardPresent: false, changed: false))
        #expect(CCIDInterruptMessage.slotChange(changes).encoded() == [0x50, 0x00, 0x0C])
        #expect(
            try CCIDInterruptMessage(decoding: [0x51, 0x00, 0x05, 0x01], slotCount: 1)
                == .hardwareError(slot: 0, sequence: 5, code: 1))
        #expect(
            CCIDInterruptMessage.hardwareError(slot: 0, sequence: 5, code: 1).encoded() == [0x51, 0x00, 0x05, 0x01])
        #expect(throws: CCIDFrameError.truncatedInterrupt(type: 0x51, received: 2, needed: 4)) {
            try CCIDInterruptMessage(decoding: [0x51, 0x00], slotCount: 1)
        }
        #expect(throws: CCIDFrameError.truncatedInterrupt(type: 0x50, received: 1, needed: 2)) {
            try CCIDInterruptMessage(decoding: [0x50], slotCount: 1)
        }
    }

    @Test func classRequests() {
        let abort = CCIDClassRequest.abort(slot: 1, sequence: 0x2A).controlRequest(interface: 2)
        #expect(abort == USBControlRequest(requestType: 0x21, request: 0x01, value: 0x2A01, index: 2))
        #expect(CCIDClassRequest(abort) == .abort(slot: 1, sequence: 0x2A))
        let clocks = CCIDClassRequest.getClockFrequencies(count: 3).controlRequest(interface: 0)
        #expect(clocks == USBControlRequest(requestType: 0xA1, request: 0x02, value: 0, index: 0, length: 12))
        let rates = CCIDClassRequest.getDataRates(count: 2).controlRequest(interface: 1)
        #expect(rates == USBControlRequest(requestType: 0xA1, request: 0x03, value: 0, index: 1, length: 8))
        #expect(CCIDClassRequest.decodeValues([0xA0, 0x0F, 0, 0, 0x00, 0x2A, 0, 0, 0xFF]) == [4000, 10752])
        #expect(CCIDClassRequest.encodeValues([4000]) == [0xA0, 0x0F, 0, 0])
    }
}
