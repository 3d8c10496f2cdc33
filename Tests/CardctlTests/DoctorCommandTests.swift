import Foundation
import Testing

@testable import cardctl

/// `cardctl doctor`'s fact gathering over made-up /proc and /sys trees, and the command itself.
@Suite("cardctl doctor")
struct DoctorCommandTests {
    @Test func processTableNamesTheHolderOfADeviceNode() throws {
        let root = try Fixtures.temporaryDirectory()
        defer { Fixtures.removeDirectory(root) }
        let fileManager = FileManager.default
        for (pid, command, target) in [(812, "pcscd", "/dev/bus/usb/001/004"), (900, "bash", "/dev/pts/0")] {
            let fd = root.appendingPathComponent("\(pid)/fd")
            try fileManager.createDirectory(at: fd, withIntermediateDirectories: true)
            try fileManager.createSymbolicLink(atPath: fd.appendingPathComponent("7").path, withDestinationPath: target)
            try Data("\(command)\n".utf8).write(to: root.appendingPathComponent("\(pid)/comm"))
        }
        try fileManager.createDirectory(at: root.appendingPathComponent("self"), withIntermediateDirectories: true)
        let table = ProcessTable(root: root.path)
        #expect(table.holders(of: "/dev/bus/usb/001/004") == [ProcessHolder(pid: 812, command: "pcscd")])
        #expect(table.holders(of: "/dev/bus/usb/001/005").isEmpty)
        // A node opened inside a umockdev testbed links to the testbed's copy.
        try fileManager.createSymbolicLink(
            atPath: root.appendingPathComponent("900/fd/8").path,
            withDestinationPath: "/tmp/umockdev.X1/dev/bus/usb/001/005")
        #expect(table.holders(of: "/dev/bus/usb/001/005") == [ProcessHolder(pid: 900, command: "bash")])
        #expect(table.processes(named: "bash") == [ProcessHolder(pid: 900, command: "bash")])
    }

    @Test func listeningSocketsFromProcNetTCP() {
        let table = """
              sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
               0: 0100007F:8C7B 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 41234 1 0000000000000000 100 0 0 10 0
               1: 0100007F:8C7B 0100007F:D2A4 01 00000000:00000000 00:00000000 00000000     0        0 41299 1 0000000000000000 20 4 30 10 -1
               2: 00000000:0016 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 1777 1 0000000000000000 100 0 0 10 0
            """
        #expect(
            ProcessTable.listeningInodes(inTCPTable: table, port: 35963) == [41234],
            "0x8C7B is 35963; the connected one is not listening")
        #expect(ProcessTable.listeningInodes(inTCPTable: table, port: 22) == [1777])
    }

    @Test func sysfsNamesTheDriverBoundToTheInterface() throws {
        let root = try Fixtures.temporaryDirectory()
        defer { Fixtures.removeDirectory(root) }
        let fileManager = FileManager.default
        func write(_ path: String, _ text: String) throws {
            let url = root.appendingPathComponent(path)
            try fileManager.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(text.utf8).write(to: url)
        }
        try write("1-1/busnum", "1\n")
        try write("1-1/devnum", "4\n")
        try write("1-1:1.0/bInterfaceNumber", "00\n")
        try fileManager.createSymbolicLink(
            atPath: root.appendingPathComponent("1-1:1.0/driver").path,
            withDestinationPath: "../../../../bus/usb/drivers/pn533_usb")
        try write("1-2/busnum", "1\n")
        try write("1-2/devnum", "5\n")
        try write("1-2:1.0/bInterfaceNumber", "00\n")
        let sysfs = SysfsUSB(root: root.path)
        #expect(sysfs.driver(bus: 1, address: 4, interface: 0) == "pn533_usb")
        #expect(sysfs.driver(bus: 1, address: 5, interface: 0) == nil, "no driver bound")
        #expect(sysfs.driver(bus: 2, address: 4, interface: 0) == nil, "no such device")
    }

    @Test("doctor --json: valid JSON, one verdict per check, the key store and socket problems found, no hang")
    func smoke() async throws {
        let home = try Fixtures.temporaryDirectory()
        defer { Fixtures.removeDirectory(home) }
        let folder = home.appendingPathComponent("cardflow")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let keys = folder.appendingPathComponent("keys.json")
        try Data("{}".utf8).write(to: keys)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: keys.path)
        let socket = home.appendingPathComponent("no-cardd.sock").path

        let result = try await CardctlProcess.run(
            ["doctor", "--json", "--socket", socket],
            environment: [
                "XDG_CONFIG_HOME": home.path, "CARDCTL_READER": "sim",
                // The machine's USB, not Scripts/test.sh's umockdev testbed, whose
                // emulated readers other suites are using.
                "UMOCKDEV_DIR": nil, "LD_PRELOAD": nil,
            ],
            timeout: .seconds(60))
        #expect(result.status == 1, "problems found: exit 1: \(result)")
        let checks = try Fixtures.jsonObjects(result.stdout)
        #expect(
            checks.allSatisfy { check in
                check["name"] is String && check["summary"] is String
                    && ["ok", "warning", "problem"].contains(check["status"] as? String ?? "")
            }, "\(result)")
        let byName = Dictionary(
            checks.map { ($0["name"] as? String ?? "", $0) }, uniquingKeysWith: { first, _ in first })
        #expect(byName["key store"]?["status"] as? String == "problem", "\(result)")
        #expect(byName["key store"]?["fix"] as? String == "chmod 600 \(keys.path)", "\(result)")
        #expect(byName["cardd"]?["status"] as? String == "problem", "\(result)")
        #expect(byName["reader choice"]?["status"] as? String == "ok", "\(result)")
        for name in ["usb", "udev rule", "pcscd", "vpcd"] {
            #expect(byName[name] != nil, "no \(name) check: \(result)")
        }
    }

    @Test func plainTextMarksEachCheck() async throws {
        let result = try await CardctlProcess.run(
            ["doctor", "-r", "sim"], environment: ["UMOCKDEV_DIR": nil, "LD_PRELOAD": nil],
            timeout: .seconds(60))
        #expect([0, 1].contains(result.status), "\(result)")
        #expect(
            result.stdoutLines.contains { $0.hasPrefix("ok      reader choice: cardctl uses sim (--reader)") },
            "\(result)")
        #expect(
            result.stdoutLines.allSatisfy {
                $0.hasPrefix("ok ") || $0.hasPrefix("warning ") || $0.hasPrefix("PROBLEM ")
                    || $0.hasPrefix("        fix: ")
            },
            "\(result)")
    }
}
