import CCID
import CardDaemon
import CardFlow
import CardFlowCCID
import CardSimulatorReaders
import DaemonTestSupport
import ReaderSelection
import Testing

/// One selector syntax for cardctl's `--reader` and cardd's `"readers"` (they used to parse
/// separately and disagree: `usb:serial=` and `sim,…` worked in one and not the other).
@Suite("Reader selectors")
struct ReaderSelectorTests {
    static let sources: [any ReaderSource] = [SimulatorReaderSource()]

    static func usbInfo(bus: UInt8 = 1, address: UInt8 = 4, serial: String? = "SN-1") -> ReaderInfo {
        ReaderInfo(
            id: "usb:\(bus):\(address):0", name: "Reader", backend: "usb", vendorID: 0x072F, productID: 0x2200,
            serialNumber: serial)
    }

    @Test(arguments: ["sim", "sim:iso7816", "sim,latency=5", "sim:desfire,state=/tmp/x.json"])
    func simulatorForms(_ text: String) throws {
        guard case .source(let source, text) = try ReaderSelector(parsing: text, sources: Self.sources),
            source.scheme == "sim"
        else {
            Issue.record("\(text) is not a simulator selector")
            return
        }
    }

    @Test func usbFormsAndWhatTheyAccept() throws {
        #expect(try ReaderSelector(parsing: "usb").accepts(Self.usbInfo()))
        #expect(try ReaderSelector(parsing: "usb:serial=SN-1").accepts(Self.usbInfo()))
        #expect(try !ReaderSelector(parsing: "usb:serial=SN-2").accepts(Self.usbInfo()))
        #expect(try !ReaderSelector(parsing: "usb:serial=SN-1").accepts(Self.usbInfo(serial: nil)))
        #expect(try ReaderSelector(parsing: "usb:072F:2200").accepts(Self.usbInfo()))
        #expect(try !ReaderSelector(parsing: "usb:072F:2201").accepts(Self.usbInfo()))
        #expect(try ReaderSelector(parsing: "usb:1:4").accepts(Self.usbInfo()))
        #expect(try !ReaderSelector(parsing: "usb:1:4").accepts(Self.usbInfo(address: 40)), "usb:1:4 is not usb:1:40")
        // A USB selector never takes another backend's reader, whatever its ids.
        var simulated = Self.usbInfo()
        simulated.backend = "sim"
        #expect(try !ReaderSelector(parsing: "usb").accepts(simulated))
    }

    @Test(arguments: ["", "foo", "usb:1:2:3", "usb:serial=", "usbx", "sim:nosuchcard", "pcsc:", "pcscx", "vpcdx"])
    func badSelectorsAreTyped(_ text: String) {
        #expect(throws: ReaderSelectorError.self) { try ReaderSelector(parsing: text, sources: Self.sources) }
    }

    @Test func withoutTheSimulatorSourceSimIsNoSelector() {
        #expect(throws: ReaderSelectorError.self) { try ReaderSelector(parsing: "sim:iso7816") }
    }

    @Test func theMessageListsTheSourcesForms() {
        let error = ReaderSelectorError.invalid("foo", reason: nil, sourceForms: ["sim[:CARD][,option=value...]"])
        #expect(
            error.description
                == "invalid reader selector 'foo'; use usb, usb:VVVV:PPPP (hex), usb:BUS:DEV, usb:serial=XYZ, "
                + "vpcd[:HOST][:PORT], pcsc[:NAME-PREFIX], or sim[:CARD][,option=value...]")
        #expect(!ReaderSelectorError.invalid("foo", reason: nil).description.contains("sim"))
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
    @Test func forms() throws {
        #expect(try ReaderSelector(parsing: "vpcd") == .vpcd(host: "127.0.0.1", port: 35963))
        #expect(try ReaderSelector(parsing: "vpcd:0") == .vpcd(host: "127.0.0.1", port: 0))
        #expect(try ReaderSelector(parsing: "vpcd:localhost:35964") == .vpcd(host: "localhost", port: 35964))
        let info = ReaderInfo(id: "vpcd:127.0.0.1:35963", name: "vpcd", backend: "vpcd")
        #expect(try ReaderSelector(parsing: "vpcd").accepts(info))
        #expect(try !ReaderSelector(parsing: "vpcd:35964").accepts(info))
    }

    @Test func pcscForms() throws {
        #expect(try ReaderSelector(parsing: "pcsc") == .pcsc(namePrefix: ""))
        #expect(try ReaderSelector(parsing: "pcsc:Gemalto PC Twin") == .pcsc(namePrefix: "Gemalto PC Twin"))
        let info = ReaderInfo(
            id: "pcsc:Gemalto PC Twin Reader 00 00", name: "Gemalto PC Twin Reader 00 00", backend: "pcsc")
        #expect(try ReaderSelector(parsing: "pcsc").accepts(info))
        #expect(try ReaderSelector(parsing: "pcsc:Gemalto").accepts(info))
        #expect(try !ReaderSelector(parsing: "pcsc:ACS").accepts(info))
    }

    @Test(arguments: ["vpcd:", "vpcd:x", "vpcd:70000", "vpcd:-1", "vpcd::35963", "vpcd:a:b:c"])
    func badForms(_ text: String) {
        #expect(throws: ReaderSelectorError.self) { try ReaderSelector(parsing: text) }
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
