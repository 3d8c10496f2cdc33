import Foundation
import Testing

@testable import cardctl

/// `cardctl doctor`'s verdicts over facts made up for each situation.
@Suite("cardctl doctor checks")
struct DoctorChecksTests {
    /// A machine where everything is fine: one claimable reader, the udev rule, pcscd's socket.
    static func healthy() -> DoctorFacts {
        var facts = DoctorFacts()
        facts.readerChoice = ReaderChoice(selector: "usb", source: .builtInDefault)
        facts.readers = [reader()]
        facts.udevRule = "/etc/udev/rules.d/60-cardflow-readers.rules"
        facts.userGroups = ["plugdev", "me"]
        facts.pcscdSocket = .socket
        facts.keyStorePath = "/home/me/.config/cardflow/keys.json"
        facts.keyStore = .file(mode: 0o600, ownedByUser: true)
        facts.daemonSocketPath = "/run/user/1000/cardd.sock"
        return facts
    }

    static func reader(
        claim: DoctorFacts.Claim = .claimed, driver: String? = nil, holders: [ProcessHolder] = [],
        node: DoctorFacts.NodeAccess? = DoctorFacts.NodeAccess(
            readWrite: true, mode: "crw-rw----", owner: "root", group: "plugdev")
    )
        -> DoctorFacts.USBReader
    {
        DoctorFacts.USBReader(
            id: "usb:1:4:0", name: "ACS ACR122U PICC Interface", vendorProduct: "072F:2200",
            devicePath: "/dev/bus/usb/001/004", node: node, kernelDriver: driver, holders: holders, claim: claim)
    }

    private func check(_ name: String, in facts: DoctorFacts) throws -> DoctorCheck {
        try #require(DoctorChecks.evaluate(facts).first { $0.name == name }, "no \(name) check")
    }

    @Test func aHealthyMachineHasNoProblem() {
        let checks = DoctorChecks.evaluate(Self.healthy())
        #expect(checks.allSatisfy { $0.status == .ok }, "\(checks)")
        #expect(
            checks.map(\.name) == [
                "reader choice", "usb", "reader usb:1:4:0", "udev rule", "pcscd", "vpcd", "key store", "cardd",
            ])
    }

    @Test func readerHeldByPCSCDNamesItAndBothWaysOut() throws {
        var facts = Self.healthy()
        facts.readers = [
            Self.reader(claim: .notTried, driver: "usbfs", holders: [ProcessHolder(pid: 812, command: "pcscd")])
        ]
        let verdict = try check("reader usb:1:4:0", in: facts)
        #expect(verdict.status == .problem)
        #expect(verdict.summary.contains("pcscd (pid 812)"), "\(verdict)")
        #expect(verdict.fix?.contains("--reader pcsc") == true, "\(verdict)")
        #expect(verdict.fix?.contains("systemctl stop pcscd") == true, "\(verdict)")
        // And with no usable reader, the default choice has nothing.
        #expect(try check("reader choice", in: facts).status == .problem)
    }

    @Test func kernelDriverIsNamedWithUnloadAndBlacklist() throws {
        var facts = Self.healthy()
        facts.readers = [Self.reader(claim: .notTried, driver: "pn533_usb")]
        let verdict = try check("reader usb:1:4:0", in: facts)
        #expect(verdict.status == .problem)
        #expect(verdict.summary.contains("kernel driver pn533_usb"), "\(verdict)")
        #expect(verdict.fix?.contains("modprobe -r pn533_usb") == true, "\(verdict)")
        #expect(verdict.fix?.contains("blacklist pn533_usb") == true, "\(verdict)")
    }

    @Test func busyWithoutAVisibleHolderSuggestsRoot() throws {
        var facts = Self.healthy()
        facts.readers = [Self.reader(claim: .busy("claimed elsewhere"), driver: "usbfs")]
        let verdict = try check("reader usb:1:4:0", in: facts)
        #expect(verdict.status == .problem)
        #expect(verdict.summary.contains("not visible here"), "\(verdict)")
        #expect(verdict.fix?.contains("sudo cardctl doctor") == true, "\(verdict)")
        // pcscd running: it is the likely holder.
        facts.pcscdProcesses = [ProcessHolder(pid: 812, command: "pcscd")]
        let likely = try check("reader usb:1:4:0", in: facts)
        #expect(likely.summary.contains("likely pcscd (pid 812)"), "\(likely)")
        #expect(likely.fix?.contains("--reader pcsc") == true, "\(likely)")
    }

    @Test("no permission on the node: join plugdev, or install the udev rule")
    func nodePermissions() throws {
        var facts = Self.healthy()
        facts.userGroups = ["me"]
        facts.readers = [
            Self.reader(
                claim: .accessDenied("open"),
                node: DoctorFacts.NodeAccess(readWrite: false, mode: "crw-rw----", owner: "root", group: "plugdev"))
        ]
        let plugdev = try check("reader usb:1:4:0", in: facts)
        #expect(plugdev.status == .problem)
        #expect(plugdev.summary.contains("crw-rw---- root:plugdev"), "\(plugdev)")
        #expect(plugdev.fix?.contains("usermod -aG plugdev") == true, "\(plugdev)")

        facts.udevRule = nil
        facts.readers = [
            Self.reader(
                claim: .accessDenied("open"),
                node: DoctorFacts.NodeAccess(readWrite: false, mode: "crw-rw-r--", owner: "root", group: "root"))
        ]
        let rule = try check("reader usb:1:4:0", in: facts)
        #expect(rule.fix?.contains("60-cardflow-readers.rules /etc/udev/rules.d/") == true, "\(rule)")
        #expect(try check("udev rule", in: facts).status == .warning)
        facts.isRoot = true
        #expect(try check("udev rule", in: facts).status == .ok)
    }

    @Test func noUSBAtAllAndNoReaderChosen() throws {
        var facts = Self.healthy()
        facts.readers = []
        facts.usbError = "USB I/O error: libusb_init failed: LIBUSB_ERROR_OTHER"
        let usb = try check("usb", in: facts)
        #expect(usb.status == .problem)
        #expect(usb.fix?.contains("--reader sim") == true, "\(usb)")
        let choice = try check("reader choice", in: facts)
        #expect(choice.status == .problem)
        #expect(choice.fix?.contains("--reader sim") == true, "\(choice)")

        facts.usbError = nil
        #expect(try check("usb", in: facts).status == .warning)
        facts.readerChoice = ReaderChoice(selector: "sim", source: .environment)
        let chosen = try check("reader choice", in: facts)
        #expect(chosen.status == .ok)
        #expect(chosen.summary.contains("CARDCTL_READER"), "\(chosen)")
    }

    @Test func badConfigurationFileIsAProblem() throws {
        var facts = Self.healthy()
        facts.readerChoice = nil
        facts.readerChoiceError = "/home/me/.config/cardflow/cardctl.json is not JSON"
        let verdict = try check("reader choice", in: facts)
        #expect(verdict.status == .problem)
        #expect(verdict.summary.contains("cardctl.json"), "\(verdict)")
    }

    @Test func pcscdStates() throws {
        var facts = Self.healthy()
        facts.pcscdProcesses = [ProcessHolder(pid: 812, command: "pcscd")]
        #expect(try check("pcscd", in: facts).summary.contains("running (pid 812)"))
        facts.pcscdSocket = .absent
        facts.pcscdProcesses = []
        facts.pcscdInstalled = false
        let absent = try check("pcscd", in: facts)
        #expect(absent.status == .ok, "pcscd is only needed for --reader pcsc")
        #expect(absent.fix == "sudo apt-get install pcscd")
        facts.pcscdSocket = .other
        #expect(try check("pcscd", in: facts).status == .problem)
    }

    @Test func vpcdPort() throws {
        var facts = Self.healthy()
        facts.vpcdListening = true
        facts.vpcdListeners = [ProcessHolder(pid: 812, command: "pcscd")]
        let pcscd = try check("vpcd", in: facts)
        #expect(pcscd.status == .ok)
        #expect(pcscd.summary.contains("cardctl export --to 127.0.0.1:35963"), "\(pcscd)")
        #expect(pcscd.fix?.contains("vpcd:35964") == true, "\(pcscd)")
        facts.vpcdListeners = []
        #expect(try check("vpcd", in: facts).status == .warning)
    }

    @Test func keyStorePermissions() throws {
        var facts = Self.healthy()
        facts.keyStore = .file(mode: 0o644, ownedByUser: true)
        let open = try check("key store", in: facts)
        #expect(open.status == .problem)
        #expect(open.summary.contains("mode 644"), "\(open)")
        #expect(open.fix == "chmod 600 /home/me/.config/cardflow/keys.json")
        facts.keyStore = .file(mode: 0o600, ownedByUser: false)
        #expect(try check("key store", in: facts).status == .warning)
        facts.keyStore = .other
        #expect(try check("key store", in: facts).status == .problem)
        facts.keyStore = .absent
        #expect(try check("key store", in: facts).status == .ok)
    }

    @Test func daemonSocket() throws {
        var facts = Self.healthy()
        facts.daemonSocket = .refused("Connection refused")
        #expect(try check("cardd", in: facts).status == .warning)
        facts.daemonSocket = .accepting
        #expect(try check("cardd", in: facts).status == .ok)
        facts.daemonSocket = .absent
        facts.daemonSocketGiven = true
        #expect(try check("cardd", in: facts).status == .problem)
        facts.daemonSocket = .notASocket
        #expect(try check("cardd", in: facts).status == .problem)
    }
}
