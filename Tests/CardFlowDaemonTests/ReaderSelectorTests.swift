import CardFlow
import CardFlowCCID
import CardFlowCCIDProtocol
import CardFlowDaemon
import CardFlowDaemonTestSupport
import CardFlowPCSC
import CardFlowSimulatorReaders
import CardFlowVPCD
import Logging
import Testing

/// One selector syntax for cardctl's `--reader` and cardd's `"readers"` (they used to parse
/// separately and disagree: `usb:serial=` and `sim,…` worked in one and not the other).
@Suite("Reader selectors")
struct ReaderSelectorTests {
    static let sources: [any ReaderSource] = [
        USBReaderSource(), PCSCReaderSource(), VPCDReaderSource(), SimulatorReaderSource(),
    ]

    static func usbInfo(bus: UInt8 = 1, address: UInt8 = 4, serial: String? = "SN-1") -> ReaderInfo {
        ReaderInfo(
            id: "usb:\(bus):\(address):0", name: "Reader", backend: "usb", vendorID: 0x072F, productID: 0x2200,
            serialNumber: serial)
    }

    @Test(arguments: ["sim", "sim:iso7816", "sim,latency=5", "sim:desfire,state=/tmp/x.json"])
    func simulatorForms(_ text: String) throws {
        let selector = try ReaderSelector(parsing: text, sources: Self.sources)
        #expect(selector.scheme == "sim" && selector.text == text)
    }

    @Test func usbFormsAndWhatTheyAccept() throws {
        #expect(try ReaderSelector(parsing: "usb", sources: Self.sources).accepts(Self.usbInfo()))
        #expect(try ReaderSelector(parsing: "usb:serial=SN-1", sources: Self.sources).accepts(Self.usbInfo()))
        #expect(try !ReaderSelector(parsing: "usb:serial=SN-2", sources: Self.sources).accepts(Self.usbInfo()))
        #expect(
            try !ReaderSelector(parsing: "usb:serial=SN-1", sources: Self.sources).accepts(Self.usbInfo(serial: nil)))
        #expect(try ReaderSelector(parsing: "usb:072F:2200", sources: Self.sources).accepts(Self.usbInfo()))
        #expect(try !ReaderSelector(parsing: "usb:072F:2201", sources: Self.sources).accepts(Self.usbInfo()))
        #expect(try ReaderSelector(parsing: "usb:1:4", sources: Self.sources).accepts(Self.usbInfo()))
        #expect(
            try !ReaderSelector(parsing: "usb:1:4", sources: Self.sources).accepts(Self.usbInfo(address: 40)),
            "usb:1:4 is not usb:1:40")
        // A USB selector never takes another backend's reader, whatever its ids.
        var simulated = Self.usbInfo()
        simulated.backend = "sim"
        #expect(try !ReaderSelector(parsing: "usb", sources: Self.sources).accepts(simulated))
    }

    @Test(arguments: ["", "foo", "usb:1:2:3", "usb:serial=", "usbx", "sim:nosuchcard", "pcsc:", "pcscx", "vpcdx"])
    func badSelectorsAreTyped(_ text: String) {
        #expect(throws: ReaderSelectorError.self) { try ReaderSelector(parsing: text, sources: Self.sources) }
    }

    @Test func withoutTheSimulatorSourceSimIsNoSelector() {
        #expect(throws: ReaderSelectorError.self) {
            try ReaderSelector(parsing: "sim:iso7816", sources: [USBReaderSource(), VPCDReaderSource()])
        }
    }

    @Test func theMessageListsTheSourcesForms() throws {
        #expect(throws: ReaderSelectorError.self) { try ReaderSelector(parsing: "foo", sources: Self.sources) }
        do {
            _ = try ReaderSelector(parsing: "foo", sources: Self.sources)
        } catch {
            #expect(
                error.description
                    == "invalid reader selector 'foo'; use usb, usb:VVVV:PPPP (hex), usb:BUS:DEV, usb:serial=XYZ, "
                    + "pcsc[:NAME-PREFIX], vpcd[:HOST][:PORT], or sim[:CARD][,option=value...]")
        }
        #expect(!ReaderSelectorError.invalid("foo", reason: nil).description.contains("sim"))
    }

    @Test func equalityIsBySchemeAndText() throws {
        let a = try ReaderSelector(parsing: "sim:iso7816", sources: Self.sources)
        let b = try ReaderSelector(parsing: "sim:iso7816", sources: [SimulatorReaderSource()])
        #expect(a == b && a.hashValue == b.hashValue)
        #expect(try a != ReaderSelector(parsing: "sim:desfire", sources: Self.sources))
        #expect(
            try ReaderSelector(parsing: "usb", sources: Self.sources)
                != ReaderSelector(parsing: "pcsc", sources: Self.sources))
    }

    @Test func carddTakesTheFormsCardctlTakes() async throws {
        // `sim,option=value` used to be refused by cardd.
        try await DaemonHarness.run(readers: ["sim,latency=0"]) { harness in
            let end = ContinuousClock.now + .seconds(60)
            while await harness.daemon.fleet.readers().isEmpty, ContinuousClock.now < end {
                try await Task.sleep(for: .milliseconds(20))
            }
            #expect(await harness.daemon.fleet.readers().map(\.backend) == ["sim"])
        }
    }
}

@Suite("Reader selectors: vpcd")
struct VPCDReaderSelectorTests {
    static let sources = ReaderSelectorTests.sources

    @Test func forms() throws {
        #expect(try VPCDReaderSource.endpoint("vpcd") == ("127.0.0.1", 35963))
        #expect(try VPCDReaderSource.endpoint("vpcd:0") == ("127.0.0.1", 0))
        #expect(try VPCDReaderSource.endpoint("vpcd:localhost:35964") == ("localhost", 35964))
        let info = ReaderInfo(id: "vpcd:127.0.0.1:35963", name: "vpcd", backend: "vpcd")
        #expect(try ReaderSelector(parsing: "vpcd", sources: Self.sources).accepts(info))
        #expect(try !ReaderSelector(parsing: "vpcd:35964", sources: Self.sources).accepts(info))
    }

    @Test func pcscForms() throws {
        #expect(try ReaderSelector(parsing: "pcsc", sources: Self.sources).scheme == "pcsc")
        #expect(
            try ReaderSelector(parsing: "pcsc:Gemalto PC Twin", sources: Self.sources).text == "pcsc:Gemalto PC Twin")
        let info = ReaderInfo(
            id: "pcsc:Gemalto PC Twin Reader 00 00", name: "Gemalto PC Twin Reader 00 00", backend: "pcsc")
        #expect(try ReaderSelector(parsing: "pcsc", sources: Self.sources).accepts(info))
        #expect(try ReaderSelector(parsing: "pcsc:Gemalto", sources: Self.sources).accepts(info))
        #expect(try !ReaderSelector(parsing: "pcsc:ACS", sources: Self.sources).accepts(info))
        var usb = info
        usb.backend = "usb"
        #expect(try !ReaderSelector(parsing: "pcsc", sources: Self.sources).accepts(usb))
    }

    @Test(arguments: ["vpcd:", "vpcd:x", "vpcd:70000", "vpcd:-1", "vpcd::35963", "vpcd:a:b:c", "vpcd,x"])
    func badForms(_ text: String) {
        #expect(throws: ReaderSelectorError.self) { try ReaderSelector(parsing: text, sources: Self.sources) }
    }
}

@Suite("USB reader ids")
struct USBReaderIDTests {
    @Test func busAndAddressComeBackFromTheID() {
        let info = ReaderInfo(id: "usb:3:17:1", name: "R", backend: "usb")
        #expect(info.usbBusAddress?.bus == 3 && info.usbBusAddress?.address == 17)
        #expect(ReaderInfo(id: "usb:3:17:1/2", name: "R slot 2", backend: "usb").usbBusAddress?.address == 17)
        #expect(ReaderInfo(id: "sim:0", name: "S", backend: "sim").usbBusAddress == nil)
        #expect(ReaderInfo(id: "usb:x:1:0", name: "R", backend: "usb").usbBusAddress == nil)
    }
}

/// The README's reader-source example, compiled and run.
@Suite("README reader-source example")
struct ReaderSourceReadmeExampleTests {
    @Test func openASelectorThroughTheSourcesList() async throws {
        let logger = Logger(label: "readme")
        let sources: [any ReaderSource] = [USBReaderSource(), PCSCReaderSource(), SimulatorReaderSource()]
        let selector = try ReaderSelector(parsing: "sim:desfire", sources: sources)
        let opened = try await selector.open(options: ReaderSourceOptions(logger: logger))
        let uid = try await opened.readers[0].withSession { session in await session.identity.uid }
        try await opened.close()
        #expect(uid?.isEmpty == false)
        #expect(opened.arrivals == nil, "a source not asked to watch opens what is there now")
    }
}
