import CardFlow
import CardFlowISO15693
import CardFlowNDEF
import CardFlowSimulator
import Testing

/// Tags that answer within the rules of the transport but with contents no real tag has:
/// each case once trapped (crashed the process) or looped forever in the client.
@Suite("NDEF clients against hostile tags")
struct HostileTagRegressionTests {
    // MARK: Type 2

    /// A Type 2 tag whose CC declares 2040 bytes of data area: pages past 255 cannot be
    /// addressed by `FF B0 00 page`, and the client used to trap on `UInt8(page)`.
    @Test func type2DataAreaBeyondPage255IsReadUpToWhatCanBeAddressed() async throws {
        let virtual = VirtualCCIDReader()
        await virtual.insert(NDEFType2Tag(seed: 1, dataAreaSize: 2040, message: [0xD0, 0x00, 0x00]))
        let back = try await Reader.simulated(virtual).withSession { session in
            try await Type2Tag(channel: session).readMessageBytes()
        }
        #expect(back == [0xD0, 0x00, 0x00])
    }

    @Test func type2WriteNeverAddressesPagesPast255() async throws {
        let virtual = VirtualCCIDReader()
        await virtual.insert(NDEFType2Tag(seed: 1, dataAreaSize: 2040))
        let reader = Reader.simulated(virtual)
        await #expect(throws: NDEFTagError.messageTooLarge(size: 1500, capacity: 1008 - 4)) {
            try await reader.withSession { session in
                try await Type2Tag(channel: session).writeMessageBytes(Array(repeating: 7, count: 1500))
            }
        }
        let fits = Array(repeating: UInt8(9), count: 1000)
        try await reader.withSession { session in try await Type2Tag(channel: session).writeMessageBytes(fits) }
        let back = try await reader.withSession { session in try await Type2Tag(channel: session).readMessageBytes() }
        #expect(back == fits)
    }

    /// A message of 64 KiB or more used to trap on `UInt8(count >> 8)` before the capacity check.
    @Test(arguments: [65_536, 70_000])
    func type2MessageOf64KiBIsTooLarge(_ size: Int) async throws {
        let virtual = VirtualCCIDReader()
        await virtual.insert(NDEFType2Tag(seed: 1, dataAreaSize: 144))
        await #expect(throws: NDEFTagError.self) {
            try await Reader.simulated(virtual).withSession { session in
                try await Type2Tag(channel: session).writeMessageBytes(Array(repeating: 1, count: size))
            }
        }
    }

    // MARK: Type 5

    @Test(arguments: [65_536, 70_000])
    func type5MessageOf64KiBIsTooLarge(_ size: Int) async throws {
        let virtual = VirtualCCIDReader()
        await virtual.insert(SimulatedISO15693Tag(seed: 1, blockSize: 4, blockCount: 32, ndefFormatted: true))
        await #expect(throws: NDEFTagError.self) {
            try await Reader.simulated(virtual).withSession { session in
                try await Type5Tag(channel: session).writeMessageBytes(Array(repeating: 1, count: size))
            }
        }
    }

    /// An 8-byte CC claiming 0xFFFF * 8 bytes on a 256-block tag: the writer used to read blocks
    /// past 255 and trap on `UInt8(block)`; the tag's real memory bounds the capacity.
    @Test func type5CapabilityContainerClaimingMoreBlocksThanExist() async throws {
        let virtual = VirtualCCIDReader()
        await virtual.insert(SimulatedISO15693Tag(seed: 1, blockSize: 4, blockCount: 256, ndefFormatted: true))
        let reader = Reader.simulated(virtual)
        try await reader.withSession { session in
            try await ISO15693Tag(channel: session).writeBlocks(
                0, data: [0xE1, 0x40, 0x00, 0x00, 0x00, 0x00, 0xFF, 0xFF, 0x03, 0x00, 0xFE, 0x00])
        }
        await #expect(throws: NDEFTagError.messageTooLarge(size: 1100, capacity: 1024 - 8 - 4 - 1)) {
            try await reader.withSession { session in
                try await Type5Tag(channel: session).writeMessageBytes(Array(repeating: 3, count: 1100))
            }
        }
        let fits = Array(repeating: UInt8(5), count: 1000)
        try await reader.withSession { session in try await Type5Tag(channel: session).writeMessageBytes(fits) }
        let back = try await reader.withSession { session in try await Type5Tag(channel: session).readMessageBytes() }
        #expect(back == fits)
    }

    // MARK: Type 4

    /// Answers SELECT with 9000 and READ BINARY with `read(offset, le)`.
    static func type4(budget: Int = 2_000, read: @escaping @Sendable (Int, Int) -> ResponseAPDU) -> AnsweringChannel {
        AnsweringChannel(budget: budget) { command in
            switch command.ins {
            case 0xA4: return .ok()
            case 0xB0: return read(Int(command.p1) << 8 | Int(command.p2), command.le ?? 0)
            default: return ResponseAPDU(sw1: 0x6D, sw2: 0x00)
            }
        }
    }

    /// The CC of a writable tag with MLe 0x3B and a 0x400-byte NDEF file E104.
    static let capabilityContainer: [UInt8] = [
        0x00, 0x0F, 0x20, 0x00, 0x3B, 0x00, 0x34, 0x04, 0x06, 0xE1, 0x04, 0x04, 0x00, 0x00, 0x00,
    ]

    /// READ BINARY answered with 9000 and 0 or 1 byte used to trap on an index.
    @Test(arguments: [[], [0x00]] as [[UInt8]])
    func type4ShortCapabilityContainerLength(_ answer: [UInt8]) async throws {
        let channel = Self.type4 { _, _ in .ok(answer) }
        await #expect(throws: NDEFTagError.self) { try await Type4Tag(channel: channel).capabilityContainer() }
    }

    @Test(arguments: [[], [0x00]] as [[UInt8]])
    func type4ShortNLEN(_ answer: [UInt8]) async throws {
        // SELECT app, SELECT CC, READ CCLEN, READ the rest of the CC, SELECT NDEF file, READ NLEN.
        let channel = AnsweringChannel { command, index in
            switch index {
            case 2: .ok([0x00, 0x0F])
            case 3: .ok(Array(Self.capabilityContainer[2...]))
            case 5: .ok(answer)
            default: command.ins == 0xA4 ? .ok() : ResponseAPDU(sw1: 0x6D, sw2: 0x00)
            }
        }
        await #expect(throws: NDEFTagError.self) { try await Type4Tag(channel: channel).readMessageBytes() }
    }

    /// Endless empty 9000 answers to the CC reads used to loop forever.
    @Test func type4EmptyAnswersEndTheCapabilityContainerRead() async throws {
        let channel = Self.type4 { offset, _ in offset == 0 ? .ok([0x00, 0x0F]) : .ok() }
        await #expect(throws: NDEFTagError.self) { try await Type4Tag(channel: channel).capabilityContainer() }
        #expect(await channel.count < 10)
    }

    /// A READ BINARY answering more bytes than Le asked for must not grow the message past NLEN.
    @Test func type4OverlongChunkIsRefused() async throws {
        let channel = Self.type4 { offset, le in
            switch offset {
            case 0: .ok([0x00, 0x0F]) // CCLEN 15, then NLEN 15
            case 2 where le == 13: .ok(Array(Self.capabilityContainer[2...]))
            default: .ok(Array(repeating: 0xAB, count: 200))
            }
        }
        await #expect(throws: NDEFTagError.self) { try await Type4Tag(channel: channel).readMessageBytes() }
    }

    // MARK: Detection

    /// A reader failing during the Type 2 probe used to be reported as "not an NDEF tag".
    @Test func detectionPassesOnReaderErrors() async throws {
        struct ReaderGone: Error {}
        struct FailingProbe: CardChannel {
            func transmit(_ command: CommandAPDU) async throws -> ResponseAPDU {
                if command.cla == 0xFF && command.ins == 0xB0 { throw ReaderGone() }
                return ResponseAPDU(sw1: 0x6A, sw2: 0x82)
            }
        }
        await #expect(throws: ReaderGone.self) { _ = try await NDEFTag.detect(on: FailingProbe()) }
        // A card that refuses the probe is still "not an NDEF tag".
        struct Refusing: CardChannel {
            func transmit(_ command: CommandAPDU) async throws -> ResponseAPDU { ResponseAPDU(sw1: 0x6A, sw2: 0x82) }
        }
        await #expect(throws: NDEFTagError.notAnNDEFTag) { _ = try await NDEFTag.detect(on: Refusing()) }
    }
}
