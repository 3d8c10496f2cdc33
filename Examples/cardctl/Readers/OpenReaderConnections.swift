import CardFlow

/// The reader connections a command opened and has not closed. cardctl closes them before it
/// exits, however the command ended: a command that throws between opening and closing (no
/// reader matched, no card) would otherwise leave a backend's threads working while the process
/// exits, and libpcsclite's exit-time destructors then crash a PC/SC thread still inside it
/// (signal 11, seen in CI's partners check).
actor OpenReaderConnections {
    static let shared = OpenReaderConnections()

    private var opened: [Int: OpenedReaders] = [:]
    private var next = 1

    /// Registers `readers`; the number identifies the entry for ``remove(_:)``.
    func add(_ readers: OpenedReaders) -> Int {
        defer { next += 1 }
        opened[next] = readers
        return next
    }

    /// The command closes the connection itself.
    func remove(_ registration: Int) {
        opened[registration] = nil
    }

    /// Closes what is still open (errors are of no use at exit).
    func closeAll() async {
        let left = opened.values
        opened = [:]
        for readers in left { try? await readers.close() }
    }
}
