import CardFlow
import CardFlowNDEF
import CardFlowSimulator
import Testing

@Suite("NDEF on Type 4 tags")
struct Type4TagTests {
    func reader(_ tag: NDEFType4Tag) async -> (Reader, VirtualCCIDReader) {
        let virtual = VirtualCCIDReader()
        await virtual.insert(tag)
        return (Reader.simulated(virtual), virtual)
    }

    @Test func writeThenReadRoundTrips() async throws {
        let (reader, virtual) = await reader(
            NDEFType4Tag(seed: 1, capacity: 2048, maxCommandData: 0x34, maxResponseData: 0x3B))
        let message = (0..<1500).map { UInt8($0 % 253) }
        try await reader.withSession { session in try await Type4Tag(channel: session).writeMessageBytes(message) }
        let back = try await reader.withSession { session in try await Type4Tag(channel: session).readMessageBytes() }
        #expect(back == message)
        let stored = try #require(await virtual.card() as? NDEFType4Tag)
        #expect(stored.message == message)
    }

    @Test func capacityAndReadOnlyAreEnforcedBeforeWriting() async throws {
        let (reader, _) = await reader(NDEFType4Tag(seed: 1, capacity: 64))
        await #expect(throws: NDEFTagError.messageTooLarge(size: 63, capacity: 62)) {
            try await reader.withSession { session in
                try await Type4Tag(channel: session).writeMessageBytes(Array(repeating: 1, count: 63))
            }
        }
        let (locked, _) = await self.reader(NDEFType4Tag(seed: 2, message: [0xD0, 0x00, 0x00], readOnly: true))
        await #expect(throws: NDEFTagError.readOnly) {
            try await locked.withSession { session in
                try await Type4Tag(channel: session).writeMessageBytes([0xD0, 0x00, 0x00])
            }
        }
    }

    @Test func aCardWithoutTheApplicationIsNotAnNDEFTag() async throws {
        let virtual = VirtualCCIDReader()
        await virtual.insert(ISO7816Card(seed: 1))
        await #expect(throws: NDEFTagError.notAnNDEFTag) {
            try await Reader.simulated(virtual).withSession { session in
                try await Type4Tag(channel: session).readMessageBytes()
            }
        }
    }

    @Test func aTagLiftedMidWriteHoldsNoPartialMessage() async throws {
        let (reader, virtual) = await reader(
            NDEFType4Tag(seed: 1, capacity: 1024, message: [0xD0, 0x00, 0x00], maxCommandData: 0x20))
        // SELECT app, SELECT CC, 2 READs of the CC, SELECT NDEF, NLEN=0, then 2 data chunks: lift.
        await virtual.liftCard(afterAPDUs: 8)
        await #expect(throws: (any Error).self) {
            try await reader.withSession { session in
                try await Type4Tag(channel: session).writeMessageBytes(Array(repeating: 0x41, count: 200))
            }
        }
        let lifted = try #require(await virtual.lastKnownCard() as? NDEFType4Tag)
        #expect(lifted.message.isEmpty, "NLEN stays 0 until the whole message is written")
    }
}

/// A DESFire EV1 carrying the NFC Forum Type 4 application as libfreefare's
/// `mifare-desfire-create-ndef` and `-write-ndef` leave it (issue 35, item 2): read through ISO
/// SELECT and READ BINARY inside the DESFire application.
@Suite("NDEF on a DESFire NDEF application")
struct DESFireType4TagTests {
    static func bytes(_ text: String) -> [UInt8] {
        text.split(separator: " ").map { UInt8($0, radix: 16)! }
    }

    /// Native commands on a factory card: AID 000001 with ISO FID E110 and the NDEF DF name, the
    /// CC file E103 and (when `withNDEFFile`) the NDEF file E104 holding `message`; both files
    /// free to read and write (no host-side DESFire crypto here: `CardSimulatorTests` checks a
    /// CC written with key 0).
    static func provisionedCard(message: [UInt8], withNDEFFile: Bool = true) -> DESFireCard {
        var card = DESFireCard(seed: 5)
        card.powerOn()
        var commands = [
            "90 CA 00 00 0E 01 00 00 0F 21 10 E1 D2 76 00 00 85 01 01 00",
            "90 5A 00 00 03 01 00 00 00",
            "90 CD 00 00 09 01 03 E1 00 E0 EE 0F 00 00 00",
            "90 3D 00 00 16 01 00 00 00 0F 00 00 00 0F 20 00 3B 00 34 04 06 E1 04 00 FF 00 00 00",
        ]
        if withNDEFFile { commands.append("90 CD 00 00 09 02 04 E1 00 E0 EE FF 00 00 00") }
        for command in commands { #expect(card.process(bytes(command)) == [0x91, 0x00], "\(command)") }
        if withNDEFFile {
            let file = [0x00, UInt8(message.count)] + message
            let write = [0x90, 0x3D, 0x00, 0x00, UInt8(7 + file.count), 0x02, 0, 0, 0, UInt8(file.count), 0, 0]
            #expect(card.process(write + file + [0x00]) == [0x91, 0x00])
        }
        return card
    }

    @Test func theMessageIsReadThroughISOFileAccess() async throws {
        let message = Self.bytes("D1 01 0B 55 03") + Array("example.com".utf8)
        let virtual = VirtualCCIDReader()
        await virtual.insert(Self.provisionedCard(message: message))
        let back = try await Reader.simulated(virtual).withSession { session in
            try await NDEFTag.detect(on: session).readMessageBytes()
        }
        #expect(back == message)
        // And written back by a Type 4 writer (UPDATE BINARY).
        let other = Self.bytes("D1 01 04 54 02 65 6E 68")
        try await Reader.simulated(virtual).withSession { session in
            try await Type4Tag(channel: session).writeMessageBytes(other)
        }
        let again = try await Reader.simulated(virtual).withSession { session in
            try await Type4Tag(channel: session).readMessageBytes()
        }
        #expect(again == other)
    }

    @Test func anApplicationWithoutTheNDEFFileIsReportedAsSuch() async throws {
        let virtual = VirtualCCIDReader()
        await virtual.insert(Self.provisionedCard(message: [], withNDEFFile: false))
        await #expect(throws: NDEFTagError.fileNotFound([0xE1, 0x04])) {
            try await Reader.simulated(virtual).withSession { session in
                try await NDEFTag.detect(on: session).readMessageBytes()
            }
        }
    }

    @Test func aCapabilityContainerThatCannotBeSelectedIsNotCalledAMissingApplication() async throws {
        // The application is there, its CC file is not: the error names the file.
        var card = DESFireCard(seed: 6)
        card.powerOn()
        #expect(
            card.process(Self.bytes("90 CA 00 00 0E 01 00 00 0F 21 10 E1 D2 76 00 00 85 01 01 00")) == [0x91, 0x00])
        let virtual = VirtualCCIDReader()
        await virtual.insert(card)
        await #expect(throws: NDEFTagError.fileNotFound([0xE1, 0x03])) {
            try await Reader.simulated(virtual).withSession { session in
                try await NDEFTag.detect(on: session).readMessageBytes()
            }
        }
    }
}
