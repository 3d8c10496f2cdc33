import CardFlow
import CardFlowNDEF
import CardFlowSimulator
import Testing

@Suite("NDEF on Type 5 (ISO 15693) tags")
struct Type5TagTests {
    @Test("write then read through detection", arguments: [0, 20, 90])
    func roundTrip(_ count: Int) async throws {
        let virtual = VirtualCCIDReader()
        await virtual.insert(SimulatedISO15693Tag(seed: 1, blockSize: 4, blockCount: 32, ndefFormatted: true))
        let reader = Reader.simulated(virtual)
        let message = (0..<count).map { UInt8(($0 * 5) % 256) }
        try await reader.withSession { session in
            let tag = try await NDEFTag.detect(on: session)
            guard case .type5 = tag else { Issue.record("not detected as Type 5: \(tag)"); return }
            try await tag.writeMessageBytes(message)
        }
        let back = try await reader.withSession { session in try await NDEFTag.detect(on: session).readMessageBytes() }
        #expect(back == message)
    }

    @Test func capacityIsChecked() async throws {
        let virtual = VirtualCCIDReader()
        await virtual.insert(SimulatedISO15693Tag(seed: 1, blockSize: 4, blockCount: 8, ndefFormatted: true))
        await #expect(throws: NDEFTagError.messageTooLarge(size: 26, capacity: 25)) {
            try await Reader.simulated(virtual).withSession { session in
                try await Type5Tag(channel: session).writeMessageBytes(Array(repeating: 1, count: 26))
            }
        }
    }

    @Test func anUnformattedTagHasNoCapabilityContainer() async throws {
        let virtual = VirtualCCIDReader()
        await virtual.insert(SimulatedISO15693Tag(seed: 1))
        await #expect(throws: NDEFTagError.self) {
            try await Reader.simulated(virtual).withSession { session in
                try await NDEFTag.detect(on: session).readMessageBytes()
            }
        }
    }
}

/// The README's NFC tag example, compiled and run.
@Suite("README NFC example")
struct ReadmeNFCExampleTests {
    @Test func example() async throws {
        let virtual = VirtualCCIDReader()
        await virtual.insert(NDEFType4Tag(seed: 1))
        let reader = Reader.simulated(virtual)
        try await reader.withSession { session in
            try await NDEFTag.detect(on: session).writeMessageBytes(
                try NDEFMessage([URIRecord("https://example.org").record]).encoded())
        }
        let message = try await reader.withSession { session in
            try NDEFMessage(decoding: try await NDEFTag.detect(on: session).readMessageBytes())
        }
        let uri = try URIRecord(message.records[0]).uri
        #expect(uri == "https://example.org")
    }
}
