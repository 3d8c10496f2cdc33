import CardFlowProcessTestSupport
import CardFlowSimulator
import CardFlowVPCDProtocol
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A card side that vanishes without closing its connection (a phone that walked out of Wi-Fi, a
/// host that lost power): nothing arrives, not even a reset. vicc runs in a network namespace of
/// its own, reached through a veth pair; the link is taken down before vicc is killed, so its FIN
/// never reaches the listener. Only TCP keep-alive can tell the listener the card is gone. The
/// same for an exporter whose reader vanishes (there a silent TCP listener is the reader).
@Suite(
    "vpcd: a card side that vanishes without closing",
    .enabled(
        if: VPCDPeers.canRunVicc && (VPCDPeers.isCI || VanishingLink.unavailable == nil),
        "needs vicc, root and iproute2 (network namespaces); runs always when CI is set"))
struct VPCDVanishedPeerTests {
    /// Detection after 1 s idle and two unanswered probes 1 s apart: about 3 s.
    static let quickKeepAlive = VPCDKeepAlive(idle: .seconds(1), interval: .seconds(1), probes: 2)

    @Test("with keep-alive the listener reports the card gone within the detection time")
    func keepAliveNoticesIt() async throws {
        try await withVanishedVicc(keepAlive: Self.quickKeepAlive) { listener, card, cut in
            try await waitFor(.absent, on: listener, limit: .seconds(60))
            let noticed = ContinuousClock.now - cut
            // Three seconds of keep-alive plus the kernel's timer slack; far below "never".
            #expect(noticed < Self.quickKeepAlive.detectionTime + .seconds(15), "noticed after \(noticed)")
            await #expect {
                try await card.transmit(hex("00A4000C023F00"))
            } throws: { error in
                guard case .cardLost(_, let reason) = error as? VPCDError else { return false }
                return reason != .closedLocally
            }
        }
    }

    /// The control: the same vanishing without keep-alive leaves the card reported present, so
    /// the test above proves keep-alive and not something else noticing.
    @Test("without keep-alive the vanished card stays reported present")
    func withoutKeepAliveNothingNotices() async throws {
        try await withVanishedVicc(keepAlive: nil) { listener, card, _ in
            // Twice the detection time of the test above: a wait for something that must not
            // happen, so it cannot be a gate.
            try await Task.sleep(for: Self.quickKeepAlive.detectionTime * 2)
            #expect(await listener.currentCard?.number == card.number, "still the vanished card")
        }
    }

    /// A listener with `keepAlive` serving vicc across a ``VanishingLink``, powered on; then the
    /// link is cut and vicc killed, and `afterVanishing` gets the listener, the card and when.
    private func withVanishedVicc(
        keepAlive: VPCDKeepAlive?,
        _ afterVanishing: (VPCDListener, VPCDCardConnection, ContinuousClock.Instant) async throws -> Void
    ) async throws {
        try await VanishingLink.with { link in
            try await VPCDListener.withListener(
                host: link.hostAddress, port: 0, allowRemote: true,
                configuration: VPCDListener.Configuration(keepAlive: keepAlive), logger: quietLogger
            ) { listener in
                let vicc = try ViccProcess(host: link.hostAddress, port: listener.port, launcher: link.launcher)
                defer { vicc.stop() }
                let card = try await within(.seconds(20), "vicc connects") { try await listener.waitForCard() }
                #expect(try await card.powerOn() == VPCDViccInteropTests.viccATR, "vicc log: \(vicc.log)")
                try await link.cut()
                vicc.kill()
                #expect(await vicc.waitForExit(), "vicc did not exit")
                try await afterVanishing(listener, card, ContinuousClock.now)
            }
        }
    }

    @Test("with keep-alive an exporter whose reader vanished ends the connection within the detection time")
    func exporterNoticesItsReaderGone() async throws {
        // Three seconds of keep-alive plus the kernel's timer slack and a loaded machine's delays.
        let limit = Self.quickKeepAlive.detectionTime + .seconds(15)
        let (ended, waited) = try await exporterWithVanishingReader(
            keepAlive: Self.quickKeepAlive, waitingAtMost: limit)
        #expect(ended, "the connection to the vanished reader ended (waited \(waited))")
    }

    @Test("without keep-alive an exporter waits on a vanished reader")
    func exporterWithoutKeepAliveWaits() async throws {
        // Twice the quick detection time: a wait for something that must not happen.
        let (ended, _) = try await exporterWithVanishingReader(
            keepAlive: nil, waitingAtMost: Self.quickKeepAlive.detectionTime * 2)
        #expect(!ended, "nothing else tells the exporter")
    }

    /// An exporter connected to a reader (a plain TCP listener in the far namespace that accepts
    /// and stays silent, as a reader between commands does) that vanishes: whether the
    /// exporter's connection ended within `limit`, and how long it took.
    private func exporterWithVanishingReader(
        keepAlive: VPCDKeepAlive?, waitingAtMost limit: Duration
    ) async throws -> (Bool, Duration) {
        try await VanishingLink.with { link in
            try await exporter(keepAlive: keepAlive, waitingAtMost: limit, across: link)
        }
    }

    private func exporter(
        keepAlive: VPCDKeepAlive?, waitingAtMost limit: Duration, across link: VanishingLink
    ) async throws -> (Bool, Duration) {
        let port = Int.random(in: 20_000..<30_000)
        let script = """
            import socket, sys, time
            server = socket.socket()
            server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            server.bind((sys.argv[1], int(sys.argv[2])))
            server.listen(1)
            connection, _ = server.accept()
            time.sleep(3600)
            """
        let reader = try ChildProcess(
            link.launcher[0],
            Array(link.launcher.dropFirst()) + ["python3", "-c", script, link.peerAddress, "\(port)"],
            output: .null, errors: .null)
        defer { reader.send(signal: SIGKILL) }
        let exporter = VPCDCardExporter(
            card: SimulatedVPCDCard(APDUTestCard()), host: link.peerAddress, port: port,
            configuration: .init(keepAlive: keepAlive), logger: quietLogger)
        let (connections, connected) = AsyncStream.makeStream(of: Void.self)
        let (endings, ended) = AsyncStream.makeStream(of: Void.self)
        let serving = Task {
            // The reader may not listen yet: connect until it does (bounded by the test below).
            while !Task.isCancelled {
                do {
                    try await exporter.runOnce { connected.yield() }
                    break
                } catch VPCDError.connectFailed {
                    try? await Task.sleep(for: .milliseconds(50))
                } catch {
                    break
                }
            }
            ended.yield()
        }
        defer { serving.cancel() }
        try await within(.seconds(20), "the exporter connects") {
            for await _ in connections { return }
        }
        try await link.cut()
        reader.send(signal: SIGKILL)
        let cut = ContinuousClock.now
        let endedInTime =
            (try? await within(limit, "the connection ends") {
                for await _ in endings { return }
            }) != nil
        let waited = ContinuousClock.now - cut
        serving.cancel()
        await serving.value
        return (endedInTime, waited)
    }
}

/// A veth pair between this network namespace and a new one: the far end is where a peer runs,
/// and ``cut()`` takes this end down, so nothing either side sends arrives any more.
struct VanishingLink {
    let namespace: String
    let hostInterface: String
    let hostAddress: String
    /// The far end's address.
    let peerAddress: String
    /// Runs a command in the far namespace.
    var launcher: [String] { [Self.ip, "netns", "exec", namespace] }

    static let ip = VPCDPeers.executable("ip") ?? "/usr/sbin/ip"

    /// Nil when namespaces can be made here; else why not.
    static let unavailable: String? = {
        guard FileManager.default.isExecutableFile(atPath: ip) else { return "ip (apt-get install iproute2)" }
        guard geteuid() == 0 else { return "root (network namespaces)" }
        return nil
    }()

    init() async throws {
        if let missing = Self.unavailable { throw ViccProcess.PeerMissing(what: missing) }
        let tag = String(UInt32.random(in: 0...0xFF_FFFF), radix: 16)
        namespace = "cardflow-ka-\(tag)"
        hostInterface = "cfka\(tag)a"
        let peerInterface = "cfka\(tag)b"
        // A /30 in 10.213.0.0/16 picked at random, so concurrent runs rarely meet.
        let subnet = Int.random(in: 0..<16_384)
        let prefix = "10.213.\(subnet / 64)"
        let last = subnet % 64 * 4
        hostAddress = "\(prefix).\(last + 1)"
        peerAddress = "\(prefix).\(last + 2)"
        let steps: [[String]] = [
            ["netns", "add", namespace],
            ["link", "add", hostInterface, "type", "veth", "peer", "name", peerInterface],
            ["link", "set", peerInterface, "netns", namespace],
            ["addr", "add", "\(hostAddress)/30", "dev", hostInterface],
            ["link", "set", hostInterface, "up"],
            ["netns", "exec", namespace, Self.ip, "addr", "add", "\(peerAddress)/30", "dev", peerInterface],
            ["netns", "exec", namespace, Self.ip, "link", "set", peerInterface, "up"],
            ["netns", "exec", namespace, Self.ip, "link", "set", "lo", "up"],
        ]
        for step in steps {
            do {
                try await Self.run(step)
            } catch {
                await remove()
                throw error
            }
        }
    }

    /// Takes this end of the link down: from now on nothing crosses it, in either direction.
    func cut() async throws {
        try await Self.run(["link", "set", hostInterface, "down"])
    }

    /// A link for the duration of `body`, removed afterwards whatever `body` did.
    static func with<T>(_ body: (VanishingLink) async throws -> T) async throws -> T {
        let link = try await VanishingLink()
        do {
            let result = try await body(link)
            await link.remove()
            return result
        } catch {
            await link.remove()
            throw error
        }
    }

    /// Deletes the namespace (its end of the pair goes with it) and this end. Idempotent.
    func remove() async {
        for step in [["netns", "delete", namespace], ["link", "delete", hostInterface]] {
            _ = try? await ChildProcess.run(Self.ip, step)
        }
    }

    private static func run(_ arguments: [String]) async throws {
        let result = try await ChildProcess.run(ip, arguments)
        guard result.termination == .exited(0) else {
            throw LinkSetupFailed(description: "ip \(arguments.joined(separator: " ")): \(result)")
        }
    }

    struct LinkSetupFailed: Error, CustomStringConvertible {
        let description: String
    }
}
