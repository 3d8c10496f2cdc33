import CardFlow
import CardFlowCCID
import CardFlowCCIDProtocol
import CardFlowDaemonControl
import Foundation
import Logging

#if canImport(Glibc)
import Glibc
#endif

/// Gathers ``DoctorFacts`` from this machine: libusb's readers, /dev/bus/usb, /sys, /proc, the
/// udev rules directories, pcscd's and cardd's sockets, the key store. Needs no root (what only
/// root may see is left out) and does not wait on anything that may not answer: sockets are
/// connected without blocking, and no USB transfer is made beyond libusb's own enumeration.
struct DoctorProbe {
    var environment = ProcessInfo.processInfo.environment
    var processes = ProcessTable()
    var sysfs = SysfsUSB()
    var logger: Logger

    static let udevRuleDirectories = [
        "/etc/udev/rules.d", "/run/udev/rules.d", "/usr/lib/udev/rules.d", "/lib/udev/rules.d",
        "/usr/local/lib/udev/rules.d",
    ]
    static let vpcdDriverPaths = [
        "/etc/reader.conf.d/vpcd", "/usr/lib/pcsc/drivers/serial/libifdvpcd.so",
        "/usr/lib/x86_64-linux-gnu/pcsc/drivers/serial/libifdvpcd.so",
        "/usr/lib/aarch64-linux-gnu/pcsc/drivers/serial/libifdvpcd.so",
    ]

    func gather(global: GlobalOptions, keyStorePath: String?) -> DoctorFacts {
        var facts = DoctorFacts()
        facts.isRoot = getuid() == 0
        facts.userGroups = Self.groupNames()
        do {
            facts.readerChoice = try global.readerChoice(environment: environment)
        } catch {
            facts.readerChoiceError = "\(error)"
        }
        gatherUSB(into: &facts)
        facts.udevRule = Self.udevRuleDirectories.map { $0 + "/" + DoctorChecks.udevRuleName }
            .first { FileManager.default.fileExists(atPath: $0) }

        facts.pcscdSocketPath =
            environment["PCSCLITE_CSOCK_NAME"].flatMap { $0.isEmpty ? nil : $0 } ?? "/run/pcscd/pcscd.comm"
        facts.pcscdSocket = Self.pathState(facts.pcscdSocketPath)
        facts.pcscdProcesses = processes.processes(named: "pcscd")
        facts.pcscdInstalled = FileManager.default.isExecutableFile(atPath: "/usr/sbin/pcscd")

        let inodes = processes.listeningSocketInodes(port: facts.vpcdPort)
        facts.vpcdListening = !inodes.isEmpty
        facts.vpcdListeners = inodes.flatMap { processes.owners(ofSocketInode: $0) }
        facts.vpcdDriver = Self.vpcdDriverPaths.first { FileManager.default.fileExists(atPath: $0) }

        facts.keyStorePath = keyStorePath ?? (try? FileKeyStore.defaultPath(environment: environment))
        if let path = facts.keyStorePath { facts.keyStore = Self.pathState(path) }

        facts.daemonSocketGiven = global.socket != nil
        facts.daemonSocketPath = global.socket ?? ControlSocketPath.forCurrentUser()
        facts.daemonSocket = Self.socketState(facts.daemonSocketPath)
        return facts
    }

    /// The CCID readers libusb lists, each with its node, driver, holders and a claim attempt.
    private func gatherUSB(into facts: inout DoctorFacts) {
        let context: LibUSBContext
        let descriptions: [USBReaderDescription]
        do {
            context = try LibUSBContext(logger: logger)
            do { descriptions = try context.readers() } catch { context.close(); throw error }
        } catch {
            facts.usbError = "\(error)"
            return
        }
        defer { context.close() }
        facts.readers = descriptions.map { description in
            let driver = sysfs.driver(
                bus: description.bus, address: description.address, interface: description.interfaceNumber)
            // This process opened each device briefly to read its strings: not a holder.
            let holders = processes.holders(of: description.devicePath).filter { $0.pid != getpid() }
            var reader = DoctorFacts.USBReader(
                id: ReaderInfo.usbID(description), name: description.name, vendorProduct: description.vendorProduct,
                devicePath: description.devicePath, node: Self.nodeAccess(description.devicePath), kernelDriver: driver,
                holders: holders, claim: .notTried)
            // Claiming would detach a kernel driver (libusb does that) or fail on a holder's claim.
            let kernelDriverBound = driver != nil && driver != "usbfs"
            if !kernelDriverBound, holders.isEmpty {
                reader.claim = Self.claim(description, context: context)
            }
            return reader
        }
    }

    private static func claim(_ description: USBReaderDescription, context: LibUSBContext) -> DoctorFacts.Claim {
        do {
            let transport = try context.openTransport(for: description)
            transport.close()
            return .claimed
        } catch {
            switch error {
            case .busy(let detail): return .busy(detail)
            case .accessDenied(let detail): return .accessDenied(detail)
            default: return .failed(error.description)
            }
        }
    }

    static func nodeAccess(_ path: String) -> DoctorFacts.NodeAccess? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return DoctorFacts.NodeAccess(
            readWrite: access(path, R_OK | W_OK) == 0, mode: modeString(info.st_mode),
            owner: userName(info.st_uid), group: groupName(info.st_gid))
    }

    static func pathState(_ path: String) -> DoctorFacts.PathState {
        var info = stat()
        guard lstat(path, &info) == 0 else { return .absent }
        switch info.st_mode & S_IFMT {
        case S_IFREG: return .file(mode: UInt32(info.st_mode & 0o7777), ownedByUser: info.st_uid == getuid())
        case S_IFSOCK: return .socket
        default: return .other
        }
    }

    /// Connects without blocking: a listening socket accepts (or is busy), a stale one refuses.
    static func socketState(_ path: String) -> DoctorFacts.SocketState {
        switch pathState(path) {
        case .absent: return .absent
        case .socket: break
        default: return .notASocket
        }
        let descriptor = socket(
            AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { return .refused(String(cString: strerror(errno))) }
        defer { close(descriptor) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard path.utf8.count < capacity else { return .refused("path too long for a Unix socket") }
        withUnsafeMutableBytes(of: &address.sun_path) { buffer in
            buffer.copyBytes(from: path.utf8)
            buffer[path.utf8.count] = 0
        }
        let result = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        if result == 0 || errno == EINPROGRESS || errno == EAGAIN { return .accepting }
        return .refused(String(cString: strerror(errno)))
    }

    private static func groupNames() -> [String] {
        let count = getgroups(0, nil)
        guard count > 0 else { return [] }
        var ids = [gid_t](repeating: 0, count: Int(count))
        let filled = getgroups(count, &ids)
        guard filled >= 0 else { return [] }
        return Set(ids.prefix(Int(filled)) + [getgid()]).map(groupName).sorted()
    }

    private static func userName(_ uid: uid_t) -> String {
        guard let entry = getpwuid(uid), let name = entry.pointee.pw_name else { return "\(uid)" }
        return String(cString: name)
    }

    private static func groupName(_ gid: gid_t) -> String {
        guard let entry = getgrgid(gid), let name = entry.pointee.gr_name else { return "\(gid)" }
        return String(cString: name)
    }

    /// `crw-rw-r--` for a character device with mode 0664.
    static func modeString(_ mode: mode_t) -> String {
        let type: Character =
            switch mode & S_IFMT {
            case S_IFCHR: "c"
            case S_IFDIR: "d"
            case S_IFBLK: "b"
            case S_IFSOCK: "s"
            case S_IFLNK: "l"
            default: "-"
            }
        let letters: [Character] = ["r", "w", "x"]
        let bits = (0..<9).map { index -> Character in
            mode & (mode_t(0o400) >> mode_t(index)) != 0 ? letters[index % 3] : "-"
        }
        return String([type] + bits)
    }
}
