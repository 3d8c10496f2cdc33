import Testing

@testable import CardFlowCCIDProtocol

@Suite("USB CCID interface discovery")
struct USBReaderDiscoveryTests {
    static let picc = CCIDClassDescriptor(features: CCIDFeatures(rawValue: 0x0004_0040), maxMessageLength: 522)
        .encoded()
    static let sam = CCIDClassDescriptor(
        protocols: [.t0, .t1], features: CCIDFeatures(rawValue: 0x0002_04BA),
        maxMessageLength: 288
    ).encoded()
    /// A HID class descriptor: also type 0x21, but 9 bytes long.
    static let hid: [UInt8] = [0x09, 0x21, 0x11, 0x01, 0x00, 0x01, 0x22, 0x3F, 0x00]

    static func ccidEndpoints(base: UInt8 = 1, bulkSize: Int = 64) -> [USBEndpointLayout] {
        [
            .bulk(base, maxPacketSize: bulkSize), .bulk(0x80 | (base + 1), maxPacketSize: bulkSize),
            .interrupt(0x80 | (base + 2), maxPacketSize: 8),
        ]
    }

    @Test func findsAClass0BInterface() throws {
        let layout = USBConfigurationLayout(interfaces: [
            USBInterfaceLayout(
                number: 0, interfaceClass: 0x0B, nameIndex: 4, extra: CCIDDescriptorTests.acr122u,
                endpoints: Self.ccidEndpoints())
        ])
        let found = layout.ccidInterfaces()
        #expect(found.count == 1)
        let interface = try #require(found.first)
        #expect(interface.number == 0)
        #expect(interface.nameIndex == 4)
        #expect(interface.descriptor.maxMessageLength == 271)
        #expect(
            interface.endpoints
                == USBCCIDEndpoints(
                    bulkOut: 0x01, bulkOutMaxPacketSize: 64, bulkIn: 0x82,
                    bulkInMaxPacketSize: 64, interruptIn: 0x83, interruptInMaxPacketSize: 8))
    }

    @Test func acceptsVendorClassWithA54ByteDescriptor() throws {
        let layout = USBConfigurationLayout(interfaces: [
            USBInterfaceLayout(number: 0, interfaceClass: 0xFF, extra: Self.picc, endpoints: Self.ccidEndpoints())
        ])
        let interface = try #require(layout.ccidInterfaces().first)
        #expect(interface.interfaceClass == 0xFF)
        #expect(interface.descriptor.exchangeLevel == .extendedAPDU)
    }

    @Test func rejectsVendorClassWithAnyOtherDescriptorLength() {
        for extra in [Self.hid, Self.picc + [0x05, 0x24, 0x00, 0x01, 0x02], []] {
            let layout = USBConfigurationLayout(interfaces: [
                USBInterfaceLayout(number: 0, interfaceClass: 0xFF, extra: extra, endpoints: Self.ccidEndpoints())
            ])
            let scan = layout.scanForCCIDInterfaces()
            #expect(scan.found.isEmpty)
            #expect(scan.skipped.isEmpty, "vendor interfaces without CCID descriptor are not worth a log line")
        }
    }

    @Test func findsTheDescriptorInTheLastEndpointsExtra() throws {
        // O2Micro Oz776, Reiner SCT, Bludrive II.
        var endpoints = Self.ccidEndpoints()
        endpoints[2].extra = Self.picc
        let layout = USBConfigurationLayout(interfaces: [
            USBInterfaceLayout(number: 0, interfaceClass: 0x0B, extra: [], endpoints: endpoints)
        ])
        let interface = try #require(layout.ccidInterfaces().first)
        #expect(interface.descriptor.maxMessageLength == 522)
    }

    @Test func compositePICCAndSAMGiveTwoInterfaces() throws {
        let layout = USBConfigurationLayout(interfaces: [
            USBInterfaceLayout(
                number: 1, interfaceClass: 0x0B, nameIndex: 5, extra: Self.sam,
                endpoints: Self.ccidEndpoints(base: 4)),
            USBInterfaceLayout(
                number: 0, interfaceClass: 0x0B, nameIndex: 4, extra: Self.picc,
                endpoints: Self.ccidEndpoints(base: 1)),
            USBInterfaceLayout(number: 2, interfaceClass: 0x03, extra: Self.hid, endpoints: [.interrupt(0x87)]),
        ])
        let found = layout.ccidInterfaces()
        #expect(found.map(\.number) == [0, 1])
        #expect(found[0].descriptor.exchangeLevel == .extendedAPDU)
        #expect(found[1].descriptor.exchangeLevel == .shortAPDU)
        #expect(found[1].endpoints.bulkOut == 0x04 && found[1].endpoints.bulkIn == 0x85)

        let names = zip(found, ["ACR1252 Dual Reader PICC", "ACR1252 Dual Reader SAM"]).map {
            interface, interfaceName in
            USBReaderDescription(
                bus: 1, address: 5, vendorID: 0x072F, productID: 0x223B, bcdDevice: 0x0100,
                manufacturer: "ACS", product: "ACR1252 Dual Reader", interfaceNumber: interface.number,
                interfaceName: interfaceName, descriptor: interface.descriptor,
                endpoints: interface.endpoints, ccidInterfaceCount: found.count
            ).name
        }
        #expect(names == ["ACS ACR1252 Dual Reader PICC", "ACS ACR1252 Dual Reader SAM"])
    }

    @Test func skipsSmartCardInterfacesItCannotDrive() {
        let layout = USBConfigurationLayout(interfaces: [
            // ICCD: control pipe only.
            USBInterfaceLayout(
                number: 0, interfaceClass: 0x0B, interfaceProtocol: 2, extra: Self.picc,
                endpoints: [.interrupt(0x81)]),
            // No descriptor at all.
            USBInterfaceLayout(number: 1, interfaceClass: 0x0B, endpoints: Self.ccidEndpoints()),
        ])
        let scan = layout.scanForCCIDInterfaces()
        #expect(scan.found.isEmpty)
        #expect(scan.skipped.map(\.interface) == [0, 1])
        #expect(scan.skipped[0].reason.contains("bulk"))
    }

    @Test func looksOnlyAtTheFirstAlternateSetting() {
        let layout = USBConfigurationLayout(interfaces: [
            USBInterfaceLayout(
                number: 0, alternateSetting: 0, interfaceClass: 0x0B, extra: Self.picc, endpoints: Self.ccidEndpoints()),
            USBInterfaceLayout(
                number: 0, alternateSetting: 1, interfaceClass: 0x0B, extra: Self.sam, endpoints: Self.ccidEndpoints()),
        ])
        #expect(layout.ccidInterfaces().map(\.descriptor.maxMessageLength) == [522])
    }

    @Test func readerWithoutInterruptEndpoint() throws {
        let layout = USBConfigurationLayout(interfaces: [
            USBInterfaceLayout(
                number: 0, interfaceClass: 0x0B, extra: Self.picc,
                endpoints: [.bulk(0x82, maxPacketSize: 512), .bulk(0x01, maxPacketSize: 512)])
        ])
        let endpoints = try #require(layout.ccidInterfaces().first?.endpoints)
        #expect(endpoints.bulkIn == 0x82 && endpoints.bulkOut == 0x01 && endpoints.bulkInMaxPacketSize == 512)
        #expect(endpoints.interruptIn == nil && endpoints.interruptInMaxPacketSize == nil)
    }

    @Test func readerNames() {
        func name(
            _ manufacturer: String?, _ product: String?, interface: String? = nil, number: UInt8 = 0,
            composite: Bool = false
        ) -> String {
            USBReaderDescription.readerName(
                manufacturer: manufacturer, product: product, interfaceName: interface,
                interfaceNumber: number, vendorID: 0x072F, productID: 0x2200,
                hasSeveralCCIDInterfaces: composite)
        }
        #expect(name("ACS", "ACR122U PICC Interface") == "ACS ACR122U PICC Interface")
        #expect(
            name("HID Global", "HID Global OMNIKEY 5022 Smart Card Reader")
                == "HID Global OMNIKEY 5022 Smart Card Reader")
        #expect(name(nil, "SCL011") == "SCL011")
        #expect(name("ACS", nil) == "ACS CCID reader 072F:2200")
        #expect(name(nil, nil) == "CCID reader 072F:2200")
        #expect(name("  ", " ") == "CCID reader 072F:2200")
        // The interface name only matters for composite devices.
        #expect(name("ACS", "ACR122U", interface: "PICC") == "ACS ACR122U")
        #expect(
            name("ACS", "ACR1252 Dual Reader", interface: "PICC", composite: true) == "ACS ACR1252 Dual Reader PICC")
        #expect(name("HID", "OMNIKEY 5422", interface: "OMNIKEY 5422 CL", composite: true) == "HID OMNIKEY 5422 CL")
        #expect(name("ACS", "ACR1581", number: 2, composite: true) == "ACS ACR1581 interface 2")
        #expect(name("ACS", "ACR1581", interface: "ACR1581", number: 1, composite: true) == "ACS ACR1581 interface 1")
    }

    @Test func descriptionFields() {
        let reader = USBReaderSelectorTests.reader(
            bus: 1, address: 4, vendorID: 0x072F, productID: 0x2200,
            serial: nil, interface: 0)
        #expect(reader.devicePath == "/dev/bus/usb/001/004")
        #expect(reader.vendorProduct == "072F:2200")
        #expect(reader.description == "CCID reader 072F:2200 (072F:2200, bus 1 device 4, interface 0)")
    }
}
