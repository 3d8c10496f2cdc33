import CardFlow
import Foundation
import Testing

@Suite("pcsc-tools ATR database")
struct SmartcardListTests {
    /// A few lines in the database's format (made up here, not copied from it).
    static let sample = """
        # comment
        # syntax: ATR regular expression, then tab-indented descriptions

        3B 8F 80 01 80 4F 0C A0 00 00 03 06 .. 00 01 00 00 00 00 ..
        \tClassic 1K, any standard byte

        3B 81 80 01 80 80
        \tAn ISO-DEP card
        \thttps://example.org/card

        3B 6[5-7] 00 00 [12]0 .*
        \tRanges, sets and a trailing star

        3B (8F|81) 80
        \tAn alternation, which the reader does not take

        """

    @Test func parsesPatternsAndTheirDescriptionLines() {
        let list = SmartcardList(text: Self.sample)
        #expect(
            list.entries.map(\.pattern) == [
                "3B 8F 80 01 80 4F 0C A0 00 00 03 06 .. 00 01 00 00 00 00 ..",
                "3B 81 80 01 80 80",
                "3B 6[5-7] 00 00 [12]0 .*",
            ])
        #expect(list.entries[1].descriptions == ["An ISO-DEP card", "https://example.org/card"])
        #expect(list.unreadablePatterns == ["3B (8F|81) 80"])
    }

    @Test func matchesWholeATRsOnly() throws {
        let list = SmartcardList(text: Self.sample)
        let classic = try [UInt8](hex: "3B8F8001804F0CA000000306030001000000006A")
        #expect(list.entries(matching: classic).map(\.descriptions) == [["Classic 1K, any standard byte"]])
        #expect(list.entries(matching: try [UInt8](hex: "3B818001808000")).isEmpty, "a longer ATR is another ATR")
        #expect(list.entries(matching: try [UInt8](hex: "3B8180018080")).count == 1)
        #expect(list.entries(matching: try [UInt8](hex: "3B66000020AABB")).count == 1)
        #expect(list.entries(matching: try [UInt8](hex: "3B6600002099")).count == 1)
        #expect(list.entries(matching: try [UInt8](hex: "3B68000020")).isEmpty)
        #expect(list.entries(matching: try [UInt8](hex: "3B65000030")).isEmpty)
    }

    @Test func patternSyntax() {
        #expect(ATRPattern("3B 0[1,3]")?.matches("3B 03") == true)
        #expect(ATRPattern("3B 0[1,3]")?.matches("3B 02") == false)
        #expect(ATRPattern("3b a.")?.matches("3B AF") == true)
        #expect(ATRPattern("3B .*")?.matches("3B") == false, "'.*' still needs the space before it")
        #expect(ATRPattern("3B.*")?.matches("3B") == true)
        #expect(ATRPattern("3B [") == nil)
        #expect(ATRPattern("*3B") == nil)
        #expect(ATRPattern("3B [^1]0") == nil)
    }

    @Test func aMissingFileIsATypedError() {
        #expect(throws: SmartcardListError.unreadable(path: "/nonexistent/smartcard_list.txt", errno: ENOENT)) {
            try SmartcardList(contentsOfFile: "/nonexistent/smartcard_list.txt")
        }
    }

    /// Where pcsc-tools is installed, its whole database reads and names a MIFARE Classic 1K.
    @Test(.enabled(if: FileManager.default.fileExists(atPath: SmartcardList.debianPath)))
    func theInstalledDatabase() throws {
        let list = try SmartcardList(contentsOfFile: SmartcardList.debianPath)
        #expect(list.entries.count > 1000)
        #expect(list.unreadablePatterns.isEmpty, "\(list.unreadablePatterns)")
        let matches = list.entries(matching: try [UInt8](hex: "3B8F8001804F0CA000000306030001000000006A"))
        #expect(matches.flatMap(\.descriptions).contains { $0.contains("MIFARE Classic 1K") }, "\(matches)")
    }
}
