import Testing

@testable import CardFlowCCIDProtocol

@Suite("USB reader selectors")
struct USBReaderSelectorTests {
    @Test func parsesEveryForm() throws {
        #expect(try USBReaderSelector(parsing: "usb") == .first)
        #expect(try USBReaderSelector(parsing: "usb:072F:2200") == .vendorProduct(vendorID: 0x072F, productID: 0x2200))
        #expect(try USBReaderSelector(parsing: "usb:072f:223b") == .vendorProduct(vendorID: 0x072F, productID: 0x223B))
        #expect(try USBReaderSelector(parsing: "usb:1:4") == .busAddress(bus: 1, address: 4))
        #expect(try USBReaderSelector(parsing: "usb:001:004") == .busAddress(bus: 1, address: 4))
        #expect(try USBReaderSelector(parsing: "usb:3:127") == .busAddress(bus: 3, address: 127))
        #expect(try USBReaderSelector(parsing: "usb:serial=RR:12 34") == .serialNumber("RR:12 34"))
    }

    @Test func fourDigitsOnBothSidesAreHex() throws {
        #expect(try USBReaderSelector(parsing: "usb:0001:0004") == .vendorProduct(vendorID: 1, productID: 4))
    }

    @Test(arguments: ["", "pcsc", "sim", "usb1", "USB", " usb"])
    func rejectsNonUSBText(_ text: String) {
        #expect(throws: USBReaderSelectorError.notAUSBSelector(text)) { try USBReaderSelector(parsing: text) }
    }

    @Test(arguments: [
        "usb:", "usb:1", "usb:1:", "usb::4", "usb:1:2:3", "usb:XYZW:0000", "usb:256:1", "usb:1:-2",
        "usb:+1:2", "usb:1:0x4", "usb:serial=", "usb:072F:22000",
    ])
    func rejectsMalformedSelectors(_ text: String) {
        #expect {
            try USBReaderSelector(parsing: text)
        } throws: { error in
            guard case .malformed(let echoed, _) = error as? USBReaderSelectorError else { return false }
            return echoed == text
        }
    }

    @Test(arguments: ["usb", "usb:072F:2200", "usb:1:4", "usb:serial=ABC"])
    func descriptionRoundTrips(_ text: String) throws {
        let selector = try USBReaderSelector(parsing: text)
        #expect(try USBReaderSelector(parsing: selector.description) == selector)
    }

    static let readers: [USBReaderDescription] = [
        reader(bus: 2, address: 7, vendorID: 0x072F, productID: 0x223B, serial: "S-2", interface: 1),
        reader(bus: 2, address: 7, vendorID: 0x072F, productID: 0x223B, serial: "S-2", interface: 0),
        reader(bus: 1, address: 9, vendorID: 0x04E6, productID: 0x5293, serial: nil, interface: 0),
        reader(bus: 1, address: 3, vendorID: 0x072F, productID: 0x2200, serial: "ACR-1", interface: 0),
    ]

    static func reader(
        bus: UInt8, address: UInt8, vendorID: UInt16, productID: UInt16, serial: String?,
        interface: UInt8
    ) -> USBReaderDescription {
        USBReaderDescription(
            bus: bus, address: address, vendorID: vendorID, productID: productID, bcdDevice: 0x0100,
            serialNumber: serial, interfaceNumber: interface,
            descriptor: CCIDClassDescriptor(features: CCIDFeatures(rawValue: 0x0002_0040), maxMessageLength: 271),
            endpoints: USBCCIDEndpoints(bulkOut: 0x02, bulkOutMaxPacketSize: 64, bulkIn: 0x82, bulkInMaxPacketSize: 64))
    }

    @Test func firstPicksTheLowestBusAddressAndInterface() throws {
        let chosen = try #require(USBReaderSelector.first.select(from: Self.readers))
        #expect(chosen.bus == 1 && chosen.address == 3)
    }

    @Test func vendorProductPicksTheLowestInterfaceOfACompositeReader() throws {
        let chosen = try #require(
            USBReaderSelector.vendorProduct(vendorID: 0x072F, productID: 0x223B).select(from: Self.readers))
        #expect(chosen.address == 7 && chosen.interfaceNumber == 0)
    }

    @Test func busAddressAndSerialMatch() throws {
        #expect(USBReaderSelector.busAddress(bus: 1, address: 9).select(from: Self.readers)?.productID == 0x5293)
        #expect(USBReaderSelector.serialNumber("ACR-1").select(from: Self.readers)?.productID == 0x2200)
        #expect(USBReaderSelector.serialNumber("S-2").matches(Self.readers[0]))
        #expect(!USBReaderSelector.serialNumber("S-2").matches(Self.readers[2])) // no serial at all
    }

    @Test func nothingMatches() {
        #expect(USBReaderSelector.busAddress(bus: 9, address: 9).select(from: Self.readers) == nil)
        #expect(USBReaderSelector.vendorProduct(vendorID: 0x1234, productID: 0x5678).select(from: Self.readers) == nil)
        #expect(USBReaderSelector.serialNumber("nope").select(from: Self.readers) == nil)
        #expect(USBReaderSelector.first.select(from: []) == nil)
    }

    @Test func errorMessagesNameTheForms() {
        #expect(USBReaderSelectorError.notAUSBSelector("x").description.contains("usb:VVVV:PPPP"))
        #expect(
            USBReaderSelectorError.noMatchingReader(.first, readersFound: 0).description
                == "no USB CCID reader found (selector usb)")
        #expect(
            USBReaderSelectorError.noMatchingReader(.busAddress(bus: 1, address: 2), readersFound: 3).description
                == "none of the 3 USB CCID reader(s) found matches usb:1:2")
    }
}
