import CardFlow
import Testing

@testable import CardFlowUFR

@Suite("uFR selectors")
struct UFRSelectorTests {
    @Test("the forms parse, with default port and speed")
    func forms() throws {
        #expect(try UFREndpoint(selector: "ufr:tcp:192.168.1.5") == .tcp(host: "192.168.1.5", port: 8881))
        #expect(try UFREndpoint(selector: "ufr:udp:reader.local:8882") == .udp(host: "reader.local", port: 8882))
        #expect(try UFREndpoint(selector: "ufr:tcp:[::1]:9000") == .tcp(host: "::1", port: 9000))
        #expect(
            try UFREndpoint(selector: "ufr:serial:/dev/ttyUSB0") == .serial(path: "/dev/ttyUSB0", baudRate: 1_000_000))
        #expect(
            try UFREndpoint(selector: "ufr:serial:/dev/ttyS0,baud=115200")
                == .serial(path: "/dev/ttyS0", baudRate: 115_200))
        #expect("\(try UFREndpoint(selector: "ufr:tcp:[::1]:9000"))" == "tcp:[::1]:9000")
    }

    @Test("ufr:usb: the first FTDI reader or one by serial, RTS level and reset as options")
    func usbForms() throws {
        #expect(try UFREndpoint(selector: "ufr:usb") == .usb(UFRFTDIOptions()))
        #expect(try UFREndpoint(selector: "ufr:usb:UN123456") == .usb(UFRFTDIOptions(serial: "UN123456")))
        let wired = try UFREndpoint(selector: "ufr:usb:UN123456,rts=high,reset")
        #expect(wired == .usb(UFRFTDIOptions(serial: "UN123456", readerRunsWith: .rtsHigh, resetOnOpen: true)))
        #expect("\(wired)" == "usb:UN123456,rts=high,reset")
        #expect(try UFREndpoint(selector: "ufr:usb,rts=off") == .usb(UFRFTDIOptions(readerRunsWith: .untouched)))
        #expect("\(try UFREndpoint(selector: "ufr:usb"))" == "usb")
        let options = UFRFTDIOptions()
        #expect(options.baudRate == 1_000_000 && options.latencyMilliseconds == 2 && options.readerRunsWith == .rtsLow)
    }

    @Test("malformed selectors are usage errors naming what is wrong")
    func malformed() {
        #expect(throws: UFRSelectorError.notAUFRSelector) { try UFREndpoint(selector: "ufr") }
        #expect(throws: UFRSelectorError.notAUFRSelector) { try UFREndpoint(selector: "ufr:usbx") }
        #expect(throws: UFRSelectorError.badUSBSerial) { try UFREndpoint(selector: "ufr:usb:") }
        #expect(throws: UFRSelectorError.badUSBSerial) { try UFREndpoint(selector: "ufr:usb:UN 1") }
        #expect(throws: UFRSelectorError.badUSBOption("rts=sideways")) {
            try UFREndpoint(selector: "ufr:usb:UN123456,rts=sideways")
        }
        #expect(throws: UFRSelectorError.badUSBOption("baud=9600")) { try UFREndpoint(selector: "ufr:usb,baud=9600") }
        #expect(throws: UFRSelectorError.badPort) { try UFREndpoint(selector: "ufr:tcp:host:0") }
        #expect(throws: UFRSelectorError.badPort) { try UFREndpoint(selector: "ufr:tcp:host:x") }
        #expect(throws: UFRSelectorError.badHost) { try UFREndpoint(selector: "ufr:udp:") }
        #expect(throws: UFRSelectorError.badHost) { try UFREndpoint(selector: "ufr:udp:a:b:c") }
        #expect(throws: UFRSelectorError.badSerialPath) { try UFREndpoint(selector: "ufr:serial:ttyUSB0") }
        #expect(throws: UFRSelectorError.badSerialOption("baud=250000")) {
            try UFREndpoint(selector: "ufr:serial:/dev/ttyUSB0,baud=250000")
        }
        #expect(UFRSelectorError.badPort.errorCategory == .usage)
    }

    @Test("the plug: ufr selectors reach UFRReaderSource, others do not")
    func plug() throws {
        let sources: [any ReaderSource] = [UFRReaderSource()]
        #expect(try ReaderSelector(parsing: "ufr:udp:10.0.0.2", sources: sources).scheme == "ufr")
        #expect(throws: ReaderSelectorError.self) { try ReaderSelector(parsing: "ufr:tcp:", sources: sources) }
        #expect(throws: ReaderSelectorError.self) { try ReaderSelector(parsing: "usb", sources: sources) }
        let info = ReaderInfo(id: "ufr:tcp:10.0.0.2:8881", name: "uFR", backend: "ufr")
        #expect(UFRReaderSource().accepts(info, selector: "ufr:tcp:10.0.0.2"))
        #expect(!UFRReaderSource().accepts(info, selector: "ufr:udp:10.0.0.2"))
    }
}
