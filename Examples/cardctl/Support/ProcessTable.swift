import Foundation

/// A process that `cardctl doctor` names: one that holds a reader's device node, listens on the
/// vpcd port, or is pcscd.
struct ProcessHolder: Sendable, Equatable, Encodable {
    let pid: Int32
    let command: String
}

/// Linux's process table as /proc shows it. Without root only this user's processes' open files
/// are visible; others are skipped, never waited for.
struct ProcessTable {
    var root = "/proc"

    /// Processes with `path` open (as a file descriptor). A device node opened inside a
    /// umockdev testbed (`cardctl simulate`) shows as the testbed's copy, `DIR/dev/bus/usb/…`:
    /// a target ending in the node's path counts too.
    func holders(of path: String) -> [ProcessHolder] {
        processes { _, targets in targets.contains { $0 == path || (path.hasPrefix("/dev/") && $0.hasSuffix(path)) } }
    }

    /// Processes with the socket of this inode open (`socket:[INODE]`).
    func owners(ofSocketInode inode: UInt64) -> [ProcessHolder] {
        let target = "socket:[\(inode)]"
        return processes { _, targets in targets.contains(target) }
    }

    /// Processes whose command name (`/proc/PID/comm`) is `name`.
    func processes(named name: String) -> [ProcessHolder] {
        pids().compactMap { pid in
            let command = self.command(of: pid)
            return command == name ? ProcessHolder(pid: pid, command: command) : nil
        }
    }

    /// The inodes of TCP sockets listening on `port` (IPv4 and IPv6), from /proc/net/tcp{,6}.
    func listeningSocketInodes(port: UInt16) -> [UInt64] {
        var inodes: [UInt64] = []
        for file in ["net/tcp", "net/tcp6"] {
            guard let text = try? String(contentsOfFile: root + "/" + file, encoding: .utf8) else { continue }
            inodes += Self.listeningInodes(inTCPTable: text, port: port)
        }
        return inodes
    }

    /// Parses /proc/net/tcp's format: `sl local_address rem_address st … inode`, addresses as
    /// `HEXADDR:HEXPORT`, state 0A for LISTEN, the inode in the tenth column.
    static func listeningInodes(inTCPTable text: String, port: UInt16) -> [UInt64] {
        text.split(separator: "\n").dropFirst().compactMap { line in
            let columns = line.split(separator: " ", omittingEmptySubsequences: true)
            guard columns.count >= 10, columns[3] == "0A",
                let portText = columns[1].split(separator: ":").last, UInt16(portText, radix: 16) == port
            else { return nil }
            return UInt64(columns[9])
        }
    }

    private func pids() -> [Int32] {
        ((try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []).compactMap { Int32($0) }.sorted()
    }

    private func command(of pid: Int32) -> String {
        let text = (try? String(contentsOfFile: "\(root)/\(pid)/comm", encoding: .utf8)) ?? "?"
        return text.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Processes for which `matches(pid, link targets of its fds)` holds.
    private func processes(where matches: (Int32, Set<String>) -> Bool) -> [ProcessHolder] {
        pids().compactMap { pid in
            let directory = "\(root)/\(pid)/fd"
            guard let descriptors = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return nil }
            let targets = Set(
                descriptors.compactMap {
                    try? FileManager.default.destinationOfSymbolicLink(atPath: directory + "/" + $0)
                })
            return matches(pid, targets) ? ProcessHolder(pid: pid, command: command(of: pid)) : nil
        }
    }
}
