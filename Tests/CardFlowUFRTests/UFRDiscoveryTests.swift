import CardFlow
import CardFlowSimulatorUFR
import Testing

@testable import CardFlowUFR

/// Discovery of Nano Online readers: the answer layout against the vendor's published example
/// (ufr.md §1.3), then the search over loopback against the simulated Online's responder and
/// against devices that answer garbage, floods or nothing.
@Suite("uFR discovery", .timeLimit(.minutes(1)))
struct UFRDiscoveryTests {
    /// Digital Logic's example: 192.168.1.5, UART1 on 8881 over TCP at 115200, UART2 on 8882 over
    /// UDP at 250000.
    static let vendorExample = try! [UInt8](hex: "C0 A8 01 05 B1 22 54 00 C2 01 00 B2 22 55 90 D0 03 00")

    @Test("the vendor's example answer")
    func vendorExample() throws {
        let answer = try UFRDiscoveryAnswer(bytes: Self.vendorExample)
        #expect(answer.host == "192.168.1.5")
        #expect(
            answer.ports == [
                .init(uart: 1, port: 8881, transport: .tcp, baudRate: 115_200),
                .init(uart: 2, port: 8882, transport: .udp, baudRate: 250_000),
            ])
        #expect(answer.serial == nil)
        #expect(
            answer.ports.map { $0.endpoint(host: answer.host).description } == [
                "tcp:192.168.1.5:8881", "udp:192.168.1.5:8882",
            ])
    }

    @Test("a serial after the documented bytes, as pyuFR reads it; other tails are ignored")
    func serialTail() throws {
        let serial = Array("ON123456".utf8)
        #expect(try UFRDiscoveryAnswer(bytes: Self.vendorExample + [0x0B] + serial + [0x00]).serial == "ON123456")
        for tail: [UInt8] in [
            [0x0B] + serial, [0x0C] + serial + [0x00], [0x0B, 0x00], [0x0B, 0x4F, 0x0A, 0x00], [0xFF],
        ] {
            let answer = try UFRDiscoveryAnswer(bytes: Self.vendorExample + tail)
            #expect(answer.serial == nil, "\(tail.hexString)")
            #expect(answer.host == "192.168.1.5")
        }
    }

    @Test("what is not an answer is a typed reader error")
    func malformed() {
        var wrongTransport = Self.vendorExample
        wrongTransport[6] = 0x58
        var noPort = Self.vendorExample
        noPort[11] = 0
        noPort[12] = 0
        let cases: [([UInt8], UFRDiscoveryAnswerError)] = [
            ([], .tooShort(0)), (Array(Self.vendorExample.dropLast()), .tooShort(17)),
            (wrongTransport, .unknownTransport(uart: 1, byte: 0x58)), (noPort, .noPort(uart: 2)),
        ]
        for (bytes, expected) in cases {
            #expect(throws: expected) { try UFRDiscoveryAnswer(bytes: bytes) }
            #expect(expected.category == .reader)
        }
    }

    @Test("seeded random datagrams give an answer or a typed error, never a trap")
    func randomBytes() {
        var state: UInt64 = 0xD1B5_4A32_D192_ED03
        var parsed = 0
        for _ in 0..<5_000 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let length = Int(state >> 58) // 0…63
            var bytes = (0..<length).map { UInt8(truncatingIfNeeded: state >> (($0 % 8) * 8) ^ UInt64($0)) }
            if bytes.count > 13 {
                bytes[6] = state & 1 == 0 ? 0x54 : 0x55
                bytes[13] = state & 2 == 0 ? 0x54 : 0x55
            }
            if let answer = try? UFRDiscoveryAnswer(bytes: bytes) {
                parsed += 1
                #expect(answer.ports.count == 2 && answer.ports.allSatisfy { (1...65_535).contains($0.port) })
            }
        }
        #expect(parsed > 0)
    }

    @Test("a search finds the simulated Online, and each port it reports opens the reader")
    func searchFindsTheSimulatedOnline() async throws {
        let online = try await UFRTestSupport.online()
        let responder = try await SimulatedUFRDiscoveryResponder.start(online: online, serial: "ON000042")
        // The window is only an upper bound: the search returns at the first answer.
        let result = try await UFRDiscovery.discover(
            address: "127.0.0.1", port: responder.port, window: .seconds(30), stopAfter: 1)
        let found = try #require(result.readers.first)
        #expect(result.readers.count == 1 && result.rejected.isEmpty)
        #expect(found.source == "127.0.0.1" && found.answer.host == "127.0.0.1")
        #expect(found.answer.serial == "ON000042")
        #expect(found.answer.ports.map(\.port) == [online.udpPort, online.tcpPort])
        for port in found.answer.ports {
            let selector = "ufr:\(port.endpoint(host: found.answer.host))"
            var options = ReaderSourceOptions(logger: UFRTestSupport.logger)
            options.backendSettings[UFRSourceSettings.self] = UFRSourceSettings(timing: UFRTestSupport.timing)
            let opened = try await ReaderSelector(parsing: selector, sources: [UFRReaderSource()]).open(
                options: options)
            #expect(try #require(opened.readers.first).info.serialNumber == "ON123456", "\(selector)")
            try await opened.close()
        }
        #expect(await responder.answered >= 1)
        await responder.stop()
        await online.stop()
    }

    @Test("a flood of garbage is bounded; a reader answering among it counts once")
    func flood() async throws {
        let garbage = Array(repeating: [UInt8](repeating: 0xEE, count: 40), count: 600)
        // The answer first (the kernel may drop part of a flood) and again after the garbage.
        let responder = try await SimulatedUFRDiscoveryResponder.start(
            answers: [Self.vendorExample] + garbage + [Self.vendorExample])
        let result = try await UFRDiscovery.discover(
            address: "127.0.0.1", port: responder.port, window: .seconds(2))
        #expect(result.readers.map(\.answer.host) == ["192.168.1.5"])
        #expect(!result.rejected.isEmpty && result.rejected.count <= UFRDiscovery.maximumReaders)
        #expect(result.rejected.allSatisfy { $0.error == .unknownTransport(uart: 1, byte: 0xEE) })
        await responder.stop()
    }

    @Test("nobody answering: the window ends the search with nothing found")
    func silence() async throws {
        // A responder that answers nothing: its port is bound, so no ICMP error either.
        let responder = try await SimulatedUFRDiscoveryResponder.start(answers: [])
        let result = try await UFRDiscovery.discover(
            address: "127.0.0.1", port: responder.port, window: .milliseconds(200))
        #expect(result.readers.isEmpty && result.rejected.isEmpty)
        // Both probes were sent before the window ended; wait (a gate, not a sleep) until the
        // responder has seen the second, and no more come.
        while await responder.answered < 2 { await Task.yield() }
        #expect(await responder.answered == 2, "the probe goes out twice within the window")
        await responder.stop()
    }

    @Test("cancelling a search ends it with CancellationError")
    func cancellation() async throws {
        let responder = try await SimulatedUFRDiscoveryResponder.start(answers: [])
        let search = Task {
            try await UFRDiscovery.discover(address: "127.0.0.1", port: responder.port, window: .seconds(3_600))
        }
        while await responder.answered == 0 { await Task.yield() }
        search.cancel()
        await #expect(throws: CancellationError.self) { try await search.value }
        await responder.stop()
    }
}
