/// One verdict of `cardctl doctor`: what was checked, how it stands, and the fix in one line.
struct DoctorCheck: Sendable, Equatable, Encodable {
    enum Status: String, Sendable, Encodable {
        case ok, warning, problem
    }

    let name: String
    let status: Status
    let summary: String
    let fix: String?

    init(_ name: String, _ status: Status, _ summary: String, fix: String? = nil) {
        self.name = name
        self.status = status
        self.summary = summary
        self.fix = fix
    }
}

/// `cardctl doctor`'s judgement: a pure function from ``DoctorFacts`` to checks, in the order a
/// person reads them (reader choice, USB, each reader, udev, pcscd, vpcd, key store, cardd).
enum DoctorChecks {
    static let udevRuleName = "60-cardflow-readers.rules"
    static let installUdevRule =
        "sudo cp Examples/cardd/\(udevRuleName) /etc/udev/rules.d/ && sudo udevadm control --reload && sudo udevadm trigger"

    static func evaluate(_ facts: DoctorFacts) -> [DoctorCheck] {
        var checks = [readerChoice(facts), usb(facts)]
        checks += facts.readers.map { reader(facts, $0) }
        checks += [udev(facts), pcscd(facts), vpcd(facts), keyStore(facts), daemon(facts)]
        return checks
    }

    static func readerChoice(_ facts: DoctorFacts) -> DoctorCheck {
        if let error = facts.readerChoiceError {
            return DoctorCheck(
                "reader choice", .problem, error, fix: "fix or remove the file (it holds {\"reader\": \"SELECTOR\"})")
        }
        guard let choice = facts.readerChoice else {
            return DoctorCheck("reader choice", .problem, "no reader could be chosen")
        }
        guard choice.source == .builtInDefault else {
            return DoctorCheck("reader choice", .ok, "cardctl uses \(choice)")
        }
        if facts.readers.contains(where: { $0.claim == .claimed }) {
            return DoctorCheck(
                "reader choice", .ok,
                "cardctl uses the first USB CCID reader (nothing chosen with --reader, "
                    + "\(ReaderChoice.environmentVariable) or cardctl.json)")
        }
        return DoctorCheck(
            "reader choice", .problem,
            "nothing chose a reader and no USB CCID reader is usable, so card commands have no reader",
            fix: "plug a reader in (see below), or choose one: --reader sim (simulator), --reader pcsc, "
                + "or \(ReaderChoice.environmentVariable)=SELECTOR")
    }

    static func usb(_ facts: DoctorFacts) -> DoctorCheck {
        if let error = facts.usbError {
            return DoctorCheck(
                "usb", .problem, "libusb cannot list USB devices: \(error)",
                fix:
                    "run where /dev/bus/usb exists (in a container: pass the USB bus through); the simulator needs none: --reader sim"
            )
        }
        if facts.readers.isEmpty {
            return DoctorCheck(
                "usb", .warning, "no USB CCID reader found",
                fix:
                    "plug a reader in; readers that are no CCID devices (serial, vendor protocols) need pcscd and their driver: --reader pcsc"
            )
        }
        return DoctorCheck("usb", .ok, "\(facts.readers.count) USB CCID reader interface(s) found")
    }

    static func reader(_ facts: DoctorFacts, _ reader: DoctorFacts.USBReader) -> DoctorCheck {
        let name = "reader \(reader.id)"
        let label = "\(reader.name) [\(reader.vendorProduct)] at \(reader.devicePath)"
        let holders = reader.holders.map { "\($0.command) (pid \($0.pid))" }.joined(separator: ", ")
        let heldByPCSCD = reader.holders.contains { $0.command == "pcscd" }
        if let driver = reader.kernelDriver, driver != "usbfs" {
            return DoctorCheck(
                name, .problem, "\(label): kernel driver \(driver) is bound to it",
                fix:
                    "sudo modprobe -r \(driver) now; for good: echo 'blacklist \(driver)' | sudo tee /etc/modprobe.d/blacklist-\(driver).conf"
            )
        }
        if heldByPCSCD {
            return DoctorCheck(
                name, .problem, "\(label): held by \(holders)",
                fix:
                    "use it through pcscd: --reader pcsc; or stop pcscd for direct access: sudo systemctl stop pcscd.socket pcscd"
            )
        }
        if !reader.holders.isEmpty {
            return DoctorCheck(
                name, .problem, "\(label): held by \(holders)", fix: "end that program, or use the reader through it")
        }
        if let node = reader.node, !node.readWrite {
            let permissions = "\(node.mode) \(node.owner):\(node.group)"
            let fix: String
            if node.group == "plugdev", !facts.userGroups.contains("plugdev") {
                fix = "join plugdev: sudo usermod -aG plugdev $USER, then log in again"
            } else if facts.udevRule == nil {
                fix = "install the udev rule: \(installUdevRule); then join plugdev"
            } else {
                fix = "replug the reader so the udev rule applies, or: sudo udevadm trigger"
            }
            return DoctorCheck(
                name, .problem, "\(label): no read/write permission on the device node (\(permissions))", fix: fix)
        }
        switch reader.claim {
        case .claimed:
            return DoctorCheck(name, .ok, "\(label): claimable")
        case .busy(let detail):
            if let pcscd = facts.pcscdProcesses.first {
                // Its descriptors are not visible (another user's, or a testbed's): name the likely holder.
                return DoctorCheck(
                    name, .problem,
                    "\(label): busy: claimed by another program, likely pcscd (pid \(pcscd.pid)), which is running",
                    fix:
                        "use it through pcscd: --reader pcsc; or stop pcscd for direct access: sudo systemctl stop pcscd.socket pcscd"
                )
            }
            let who =
                reader.kernelDriver == "usbfs"
                ? "another program has claimed it (another user's, not visible here)" : detail
            return DoctorCheck(
                name, .problem, "\(label): busy: \(who)",
                fix:
                    "run sudo cardctl doctor to name it; if it is pcscd: --reader pcsc, or sudo systemctl stop pcscd.socket pcscd"
            )
        case .accessDenied(let detail):
            return DoctorCheck(
                name, .problem, "\(label): access denied: \(detail)", fix: "install the udev rule: \(installUdevRule)")
        case .failed(let detail):
            return DoctorCheck(
                name, .problem, "\(label): cannot be opened: \(detail)",
                fix: "replug the reader; if it persists, cardctl --trace list shows more")
        case .notTried:
            return DoctorCheck(
                name, .warning, "\(label): not tried (\(reader.kernelDriver.map { "driver \($0) bound" } ?? "in use"))")
        }
    }

    static func udev(_ facts: DoctorFacts) -> DoctorCheck {
        if let path = facts.udevRule { return DoctorCheck("udev rule", .ok, "installed: \(path)") }
        if facts.isRoot {
            return DoctorCheck(
                "udev rule", .ok,
                "\(udevRuleName) is not installed (root needs none; other users and cardd's plugdev service do)",
                fix: installUdevRule)
        }
        return DoctorCheck(
            "udev rule", .warning, "\(udevRuleName) is not installed: USB readers may need root",
            fix: installUdevRule)
    }

    static func pcscd(_ facts: DoctorFacts) -> DoctorCheck {
        let running = facts.pcscdProcesses.map { "pid \($0.pid)" }.joined(separator: ", ")
        switch (facts.pcscdSocket, facts.pcscdProcesses.isEmpty) {
        case (.socket, false):
            return DoctorCheck(
                "pcscd", .ok,
                "running (\(running)), socket \(facts.pcscdSocketPath): --reader pcsc reaches its readers; "
                    + "the USB readers it holds are busy for --reader usb")
        case (.socket, true):
            return DoctorCheck(
                "pcscd", .ok,
                "socket \(facts.pcscdSocketPath) is there (pcscd starts on first use): --reader pcsc works")
        case (.absent, false):
            return DoctorCheck(
                "pcscd", .warning,
                "running (\(running)) but \(facts.pcscdSocketPath) is missing: it uses another socket",
                fix: "set PCSCLITE_CSOCK_NAME to its socket for --reader pcsc")
        case (.absent, true):
            return DoctorCheck(
                "pcscd", .ok, "not running (needed only for --reader pcsc)",
                fix: facts.pcscdInstalled ? "sudo systemctl start pcscd" : "sudo apt-get install pcscd")
        case (_, _):
            return DoctorCheck(
                "pcscd", .problem, "\(facts.pcscdSocketPath) is not a socket", fix: "remove it and restart pcscd")
        }
    }

    static func vpcd(_ facts: DoctorFacts) -> DoctorCheck {
        let port = facts.vpcdPort
        let driver = facts.vpcdDriver.map { "vpcd driver at \($0)" } ?? "no vpcd driver for pcscd installed"
        guard facts.vpcdListening else {
            return DoctorCheck("vpcd", .ok, "port \(port) is free: --reader vpcd can listen for vicc (\(driver))")
        }
        let owners = facts.vpcdListeners.map { "\($0.command) (pid \($0.pid))" }.joined(separator: ", ")
        if facts.vpcdListeners.contains(where: { $0.command == "pcscd" }) {
            return DoctorCheck(
                "vpcd", .ok,
                "pcscd's vpcd driver listens on \(port): cardctl export --to 127.0.0.1:\(port) serves a card to PC/SC programs",
                fix: "for --reader vpcd pick another port: --reader vpcd:\(port + 1)")
        }
        return DoctorCheck(
            "vpcd", .warning, "port \(port) is taken by \(owners.isEmpty ? "a process not visible here" : owners)",
            fix: "--reader vpcd needs a free port: --reader vpcd:\(port + 1)")
    }

    static func keyStore(_ facts: DoctorFacts) -> DoctorCheck {
        guard let path = facts.keyStorePath else {
            return DoctorCheck(
                "key store", .warning, "no default location (neither XDG_CONFIG_HOME nor HOME is set)",
                fix: "give --key-store PATH")
        }
        switch facts.keyStore {
        case .absent:
            return DoctorCheck("key store", .ok, "\(path) does not exist yet (cardctl key set creates it, mode 0600)")
        case .file(let mode, let ownedByUser):
            let octal = String(mode & 0o7777, radix: 8)
            if mode & 0o077 != 0 {
                return DoctorCheck(
                    "key store", .problem, "\(path) has mode \(octal): others may read it, and cardctl refuses it",
                    fix: "chmod 600 \(path)")
            }
            if !ownedByUser {
                return DoctorCheck(
                    "key store", .warning, "\(path) belongs to another user", fix: "sudo chown $USER \(path)")
            }
            return DoctorCheck("key store", .ok, "\(path) (mode \(octal))")
        case .socket, .other:
            return DoctorCheck(
                "key store", .problem, "\(path) is not a regular file (cardctl refuses links and special files)",
                fix: "move it away; cardctl key set writes a new one")
        }
    }

    static func daemon(_ facts: DoctorFacts) -> DoctorCheck {
        let path = facts.daemonSocketPath
        switch facts.daemonSocket {
        case .accepting:
            return DoctorCheck("cardd", .ok, "cardd answers at \(path): --socket \(path) reaches it")
        case .absent:
            if facts.daemonSocketGiven {
                return DoctorCheck(
                    "cardd", .problem, "no cardd socket at \(path)",
                    fix: "start cardd (cardd --socket \(path) …) or fix the path")
            }
            return DoctorCheck("cardd", .ok, "no cardd at \(path) (needed only for --socket)")
        case .notASocket:
            return DoctorCheck("cardd", .problem, "\(path) is not a socket", fix: "remove it; cardd creates its socket")
        case .refused(let detail):
            return DoctorCheck(
                "cardd", .warning, "\(path) is there but nothing answers (\(detail)): cardd is not running",
                fix: "start cardd, or remove the stale socket")
        }
    }
}
