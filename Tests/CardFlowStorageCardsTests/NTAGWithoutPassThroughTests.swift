import CardFlow
import CardFlowSimulator
import Testing

@testable import CardFlowStorageCards

/// A reader with PC/SC part 3 READ/UPDATE BINARY but without its transparent exchange
/// (`FF C2`), as PC/SC part 3 allows (an unsupported instruction answers `6A 81`, function not
/// supported), in front of a simulated NTAG215 (issue 35, item 10).
struct ReaderWithoutTransparentExchange: ReaderAwareVirtualCard {
    var tag: SimulatedNTAG21xCard
    /// The `FF C2` commands the reader refused.
    var refused = 0

    var kind: String { tag.kind }
    var technology: ContactlessTechnology { tag.technology }
    var uid: [UInt8] { tag.uid }
    var readerPassThroughInstructions: Set<UInt8> { tag.readerPassThroughInstructions }
    mutating func powerOn() { tag.powerOn() }
    mutating func placed(onReaderWithVendorID vendorID: UInt16, productID: UInt16) {
        tag.placed(onReaderWithVendorID: vendorID, productID: productID)
    }
    mutating func process(_ command: [UInt8]) -> [UInt8] {
        guard command.count < 2 || command[0] != 0xFF || command[1] != 0xC2 else {
            refused += 1
            return [0x6A, 0x81]
        }
        return tag.process(command)
    }
}

@Suite("NTAG client on a reader without the transparent exchange")
struct NTAGWithoutPassThroughTests {
    @Test("open identifies the tag from its capability container; pages work; raw-frame commands say why not")
    func fallsBackToPart3Pages() async throws {
        let (reader, virtual) = try await ClassicSimulatedReaders.open(
            card: "ntag215", profile: ClassicSimulatedReaders.identivProfile)
        _ = await virtual.removeCard()
        await virtual.insert(ReaderWithoutTransparentExchange(tag: SimulatedNTAG21xCard(seed: 4, model: .ntag215)))
        let (product, read, refusal, versionError) = try await reader.withSession { session in
            let tag = try await NTAGClient.open(on: session)
            try await tag.write(page: 4, [0xDE, 0xAD, 0xBE, 0xEF])
            let read = try await tag.readPages(4...4)
            var versionError: StorageCardError?
            do { _ = try await tag.getVersion() } catch let error as StorageCardError { versionError = error }
            try await tag.finish()
            return (tag.product, read, tag.rawFrameRefusal, versionError)
        }
        #expect(product == .ntag215)
        #expect(read == [0xDE, 0xAD, 0xBE, 0xEF])
        #expect(refusal?.isPassThroughRefusal == true)
        let error = try #require(versionError)
        guard case .unsupportedByReader(_, let what) = error else {
            Issue.record("expected unsupportedByReader, got \(error)")
            return
        }
        #expect(what.contains("60") && what.contains("FF B0"), "\(what)")
        #expect(error.category == .usage)
        // Nothing but the first session start reached the reader's FF C2.
        let card = try #require(await virtual.lastKnownCard() as? ReaderWithoutTransparentExchange)
        #expect(card.refused == 1)
    }

    @Test("the capability container's size byte names NTAG213/215/216 and MF0UL21")
    func productFromCapabilityContainer() {
        #expect(Type2Product(capabilityContainer: [0xE1, 0x10, 0x12, 0x00]) == .ntag213)
        #expect(Type2Product(capabilityContainer: [0xE1, 0x10, 0x3E, 0x00]) == .ntag215)
        #expect(Type2Product(capabilityContainer: [0xE1, 0x10, 0x6D, 0x00]) == .ntag216)
        #expect(Type2Product(capabilityContainer: [0xE1, 0x10, 0x10, 0x00]) == .ultralightEV1MF0UL21)
        #expect(Type2Product(capabilityContainer: [0xE1, 0x10, 0x06, 0x00]) == nil)
        #expect(Type2Product(capabilityContainer: [0x00, 0x00, 0x00, 0x00]) == nil)
    }
}
