import Foundation
import Testing

@Suite("cardctl list")
struct ListCommandTests {
    static let exchangeLevels: Set<String> = ["character", "tpdu", "shortAPDU", "extendedAPDU"]

    /// Checks the fields every listing carries, and returns the only listing.
    private func singleListing(_ result: CardctlResult, sourceLocation: SourceLocation = #_sourceLocation) throws
        -> [String: Any]
    {
        #expect(result.status == 0, "\(result)", sourceLocation: sourceLocation)
        let listings = try Fixtures.jsonObjects(result.stdout)
        try #require(listings.count == 1, "\(result)", sourceLocation: sourceLocation)
        let listing = listings[0]
        #expect((listing["name"] as? String)?.isEmpty == false, sourceLocation: sourceLocation)
        for key in ["vendorID", "productID"] {
            let value = listing[key] as? String
            #expect(
                value?.count == 4 && value?.allSatisfy { $0.isHexDigit && !$0.isLowercase } == true,
                "\(key) should be 4 hex digits, got \(String(describing: listing[key]))", sourceLocation: sourceLocation
            )
        }
        #expect(
            Self.exchangeLevels.contains(listing["exchangeLevel"] as? String ?? ""),
            "exchangeLevel \(String(describing: listing["exchangeLevel"]))", sourceLocation: sourceLocation)
        #expect((listing["maxMessageLength"] as? Int ?? 0) > 0, sourceLocation: sourceLocation)
        #expect((listing["slots"] as? Int ?? 0) >= 1, sourceLocation: sourceLocation)
        #expect(listing["cardPresent"] is Bool, sourceLocation: sourceLocation)
        return listing
    }

    @Test("sim:iso7816: the simulated card is present, with its ATR")
    func simulatedReader() async throws {
        let result = try await CardctlProcess.run(["list", "--json", "--reader", "sim:iso7816"])
        let listing = try singleListing(result)
        #expect(listing["name"] as? String == "CardFlow Virtual Reader")
        #expect(listing["vendorID"] as? String == "072F")
        #expect(listing["productID"] as? String == "223E")
        #expect(listing["exchangeLevel"] as? String == "extendedAPDU")
        #expect(listing["maxMessageLength"] as? Int == 271)
        #expect(listing["slots"] as? Int == 1)
        #expect(listing["cardPresent"] as? Bool == true)
        #expect(listing["atr"] as? String == "3B8180018080")
    }

    @Test("sim:none: no card, no atr key")
    func emptyReader() async throws {
        let result = try await CardctlProcess.run(["list", "--json", "--reader", "sim:none"])
        let listing = try singleListing(result)
        #expect(listing["cardPresent"] as? Bool == false)
        #expect(listing["atr"] == nil, "atr should be absent without a card, got \(String(describing: listing["atr"]))")
    }

    @Test(
        "profile=ACR122U_PICC.txt mimics the ACR122U",
        .enabled(
            if: Fixtures.hasReaderDumps,
            "Tests/Fixtures/ccid-readers (ACR122U_PICC.txt) is not in this repository"))
    func profileReader() async throws {
        let dump = Fixtures.readerDump("ACR122U_PICC.txt").path
        let result = try await CardctlProcess.run(["list", "--json", "--reader", "sim:iso7816,profile=\(dump)"])
        let listing = try singleListing(result)
        #expect(listing["vendorID"] as? String == "072F")
        #expect(listing["productID"] as? String == "2200")
        #expect(listing["exchangeLevel"] as? String == "shortAPDU")
        #expect(listing["maxMessageLength"] as? Int == 271)
        #expect(listing["slots"] as? Int == 1)
        #expect(listing["cardPresent"] as? Bool == true)
        #expect((listing["atr"] as? String)?.isEmpty == false)
    }

    @Test("without --json: one human-readable block, exit 0")
    func plainText() async throws {
        let result = try await CardctlProcess.run(["list", "--reader", "sim:iso7816"])
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout.contains("CardFlow Virtual Reader"), "\(result)")
        #expect(
            (try? JSONSerialization.jsonObject(with: Data(result.stdout.utf8))) == nil,
            "plain output should not be JSON")
    }
}
