import CardFlow
import Testing

/// The signal dialects' bytes, as the ACS manuals give them, and which readers they claim.
@Suite("Reader signal dialects")
struct ReaderSignalDialectTests {
    static func usb(_ vendor: UInt16, _ product: UInt16) -> ReaderInfo {
        ReaderInfo(
            id: "usb:1:2:0", name: "reader", backend: "usb", vendorID: vendor, productID: product,
            capabilities: ReaderCapabilities(maximumCommandLength: 261, protocols: [.t1]))
    }

    static func pcsc(_ name: String) -> ReaderInfo {
        ReaderInfo(
            id: "pcsc:\(name)", name: name, backend: "pcsc",
            capabilities: ReaderCapabilities(maximumCommandLength: 261, protocols: [.t1]))
    }

    @Test("families by USB identity and by PC/SC name; OMNIKEY, Identiv and others have none")
    func families() {
        #expect(ReaderSignalDialects.dialect(for: Self.usb(0x072F, 0x223B))?.family == "ACS ACR1252U")
        #expect(ReaderSignalDialects.dialect(for: Self.usb(0x072F, 0x223E))?.family == "ACS ACR1252U")
        #expect(ReaderSignalDialects.dialect(for: Self.usb(0x072F, 0x2200))?.family == "ACS ACR122U")
        #expect(
            ReaderSignalDialects.dialect(for: Self.pcsc("ACS ACR1252 Dual Reader [ACR1252 Dual Reader PICC] 00 00"))?
                .family == "ACS ACR1252U")
        #expect(
            ReaderSignalDialects.dialect(for: Self.pcsc("ACS ACR122U PICC Interface 00 00"))?.family == "ACS ACR122U")
        #expect(ReaderSignalDialects.dialect(for: Self.pcsc("ACS ACR1222 3S PICC Reader 00 00")) == nil)
        #expect(ReaderSignalDialects.dialect(for: Self.usb(0x076B, 0x5427)) == nil) // OMNIKEY 5427 CK
        #expect(ReaderSignalDialects.dialect(for: Self.pcsc("HID Global OMNIKEY 5022 Smart Card Reader 00 00")) == nil)
        #expect(ReaderSignalDialects.dialect(for: Self.usb(0x04E6, 0x5790)) == nil) // Identiv uTrust 3700 F
        #expect(ReaderSignalDialects.dialect(for: Self.usb(0x1209, 0x2702)) == nil)
    }

    @Test("ACR1252U: LED control E0 00 00 29 01 state, buzzer control E0 00 00 28 01 duration")
    func acr1252uBytes() throws {
        let dialect = ACR1252USignalDialect()
        #expect(
            try dialect.commands(for: .success).map(\.bytes) == [
                [0xE0, 0x00, 0x00, 0x29, 0x01, 0x02], [0xE0, 0x00, 0x00, 0x28, 0x01, 0x0A],
            ])
        #expect(
            try dialect.commands(for: .failure).map(\.bytes) == [
                [0xE0, 0x00, 0x00, 0x29, 0x01, 0x01], [0xE0, 0x00, 0x00, 0x28, 0x01, 0x32],
            ])
        #expect(try dialect.commands(for: ReaderSignal()).isEmpty)
        #expect(try dialect.commands(for: .success).allSatisfy { $0.route == .escape })
        #expect(throws: ReaderSignalUnsupported.self) { try dialect.commands(for: ReaderSignal(light: .flash)) }
        let led = try #require(try dialect.commands(for: .success).first)
        try dialect.check([0xE1, 0x00, 0x00, 0x00, 0x01, 0x02], to: led)
        #expect(throws: ReaderSignalRefused.self) { try dialect.check([0xE1, 0x00], to: led) }
    }

    @Test("ACR122U: FF 00 40 P2 04 T1 T2 Reps Link")
    func acr122uBytes() throws {
        let dialect = ACR122USignalDialect()
        #expect(
            try dialect.commands(for: .success).map(\.bytes) == [
                [0xFF, 0x00, 0x40, 0x0E, 0x04, 0x01, 0x01, 0x01, 0x01]
            ])
        #expect(
            try dialect.commands(for: .failure).map(\.bytes) == [
                [0xFF, 0x00, 0x40, 0x0D, 0x04, 0x05, 0x01, 0x01, 0x01]
            ])
        #expect(
            try dialect.commands(for: ReaderSignal(beep: .double)).map(\.bytes) == [
                [0xFF, 0x00, 0x40, 0x00, 0x04, 0x01, 0x01, 0x02, 0x01]
            ])
        #expect(
            try dialect.commands(for: ReaderSignal(light: .alternating)).map(\.bytes) == [
                [0xFF, 0x00, 0x40, 0xD0, 0x04, 0x01, 0x01, 0x03, 0x00]
            ])
        let command = try #require(try dialect.commands(for: .success).first)
        try dialect.check([0x90, 0x02], to: command)
        #expect(throws: ReaderSignalRefused.self) { try dialect.check([0x63, 0x00], to: command) }
    }
}
