import CardFlowSimulatorCards
import CardFlowSimulatorUFR
import Foundation
import Testing

/// `cardctl --reader ufr:…` against a simulated uFR Nano Online in this process (issue 37): the
/// seed app's DESFire workflow with provided keys, over TCP and over UDP.
@Suite("cardctl over uFR")
struct UFRCommandTests {
    static let key = DESFireCommandTests.key

    @Test(
        "the DESFire workflow: format, create app, change key, create file, write, read, DES to AES",
        arguments: ["tcp", "udp"])
    func desfireWorkflow(_ transport: String) async throws {
        let online = try await SimulatedUFROnline.start(reader: SimulatedUFRReader(card: DESFireCard(seed: 21)))
        defer { Task { await online.stop() } }
        let port = transport == "tcp" ? online.tcpPort : online.udpPort
        let reader = "ufr:\(transport):127.0.0.1:\(port)"
        func run(_ arguments: [String]) async throws -> [String: Any] {
            let result = try await CardctlProcess.run(["--reader", reader, "desfire"] + arguments + ["--json"])
            #expect(result.status == 0, "\(result)")
            return try DESFireCommandTests.json(result.stdout)
        }
        let before = try #require(try await run(["free-memory"])["freeMemory"] as? Int)
        _ = try await run(["format"])
        _ = try await run(["create-app", "--aid", "A1A2A3", "--key-count", "2"])
        _ = try await run([
            "change-key", "--aid", "A1A2A3", "--key", String(repeating: "00", count: 16), "--new-key", Self.key,
        ])
        _ = try await run([
            "create-file", "--aid", "A1A2A3", "--key", Self.key, "--file", "2", "--size", "32", "--comm", "enc",
        ])
        let settings = try await run(["file-settings", "--aid", "A1A2A3", "--key", Self.key, "--file", "2"])
        #expect(settings["size"] as? Int == 32)
        _ = try await run(["write", "--aid", "A1A2A3", "--key", Self.key, "--file", "2", "--data", "CAFEF00D"])
        let read = try await run(["read", "--aid", "A1A2A3", "--key", Self.key, "--file", "2", "--length", "4"])
        #expect(read["data"] as? String == "CAFEF00D")
        _ = try await run(["des-to-aes", "--key", Self.key])
        _ = try await run(["format", "--key", Self.key])
        #expect(try await run(["free-memory"])["freeMemory"] as? Int == before)
        #expect(await online.reader.isSessionOpen == false, "every run ends with a deselect")
    }

    /// USER_INTERFACE_SIGNAL's modes as the COM protocol document numbers them: light 1 long
    /// green, 2 long red, 3 alternation; beep 1 short, 2 long, 5 melody.
    @Test("cardctl signal drives a uFR reader's LED and buzzer", arguments: ["tcp", "udp"])
    func signal(_ transport: String) async throws {
        let online = try await SimulatedUFROnline.start(reader: SimulatedUFRReader(card: DESFireCard(seed: 22)))
        defer { Task { await online.stop() } }
        let port = transport == "tcp" ? online.tcpPort : online.udpPort
        let reader = "ufr:\(transport):127.0.0.1:\(port)"
        for (arguments, light, beep) in [
            (["--success"], UInt8(1), UInt8(1)), (["--failure"], 2, 2),
            (["--light", "alternating", "--beep", "melody"], 3, 5),
        ] {
            let result = try await CardctlProcess.run(["--reader", reader, "signal", "--json"] + arguments)
            #expect(result.status == 0, "\(result)")
            let signal = await online.reader.lastSignal
            #expect(signal?.light == light && signal?.beep == beep, "\(arguments): \(String(describing: signal))")
        }
    }

    @Test("a reader with no signal CardFlow drives exits 2 and says so")
    func signalUnsupported() async throws {
        // The default simulated reader is an ACR1252 (072F:223E), which signals: an Identiv one does not.
        let identiv = Fixtures.readerDump("Identiv_uTrust_3700_F_CL_Reader.txt").path
        let result = try await CardctlProcess.run(["--reader", "sim:desfire,profile=\(identiv)", "signal", "--success"])
        #expect(result.status == 2, "\(result)")
        #expect(result.stderr.contains("has no signal"), "\(result)")
        let usage = try await CardctlProcess.run(["--reader", "sim:desfire", "signal"])
        #expect(usage.status == 2 && usage.stderr.contains("say what to show"), "\(usage)")
    }

    @Test("a uFR selector with nothing listening fails as a reader error, not a usage error")
    func unreachable() async throws {
        let online = try await SimulatedUFROnline.start(reader: SimulatedUFRReader())
        let port = online.tcpPort
        await online.stop()
        let result = try await CardctlProcess.run(["--reader", "ufr:tcp:127.0.0.1:\(port)", "desfire", "free-memory"])
        #expect(result.status == 3, "\(result)")
        #expect(result.stderr.contains("uFR"), "\(result)")
    }

    @Test("cardctl list --discover-ufr finds the simulated Online, and its selectors work")
    func discovery() async throws {
        let online = try await SimulatedUFROnline.start(reader: SimulatedUFRReader(card: DESFireCard(seed: 23)))
        let responder = try await SimulatedUFRDiscoveryResponder.start(online: online, serial: "ON777777")
        defer {
            Task {
                await responder.stop(); await online.stop()
            }
        }
        let result = try await CardctlProcess.run([
            "list", "--discover-ufr", "--discovery-address", "127.0.0.1", "--discovery-port", "\(responder.port)",
            "--discovery-time", "2", "--json",
        ])
        #expect(result.status == 0, "\(result)")
        let listing = try #require(
            try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any], "\(result)")
        let readers = try #require(listing["readers"] as? [[String: Any]])
        #expect(readers.count == 1 && readers.first?["serial"] as? String == "ON777777", "\(result)")
        let selectors = (readers.first?["ports"] as? [[String: Any]] ?? []).compactMap { $0["selector"] as? String }
        #expect(selectors == ["ufr:udp:127.0.0.1:\(online.udpPort)", "ufr:tcp:127.0.0.1:\(online.tcpPort)"])
        for selector in selectors {
            let used = try await CardctlProcess.run(["--reader", selector, "desfire", "free-memory", "--json"])
            #expect(used.status == 0, "\(selector): \(used)")
        }
        let text = try await CardctlProcess.run([
            "list", "--discover-ufr", "--discovery-address", "127.0.0.1", "--discovery-port", "\(responder.port)",
            "--discovery-time", "0.5",
        ])
        #expect(text.status == 0 && text.stdout.contains("uFR Nano Online 127.0.0.1 ON777777"), "\(text)")
        let bad = try await CardctlProcess.run(["list", "--discover-ufr", "--discovery-time", "0"])
        #expect(bad.status == 2, "\(bad)")
    }

    @Test("cardctl simulate-ufr serves a reader that its selectors and a discovery search reach")
    func simulateUFR() async throws {
        let cardctl = try CardctlExecutable.locate().path
        let script = """
            set -e
            "$0" --reader "$CARDCTL_UFR_TCP" desfire free-memory --json
            "$0" --reader "$CARDCTL_UFR_UDP" desfire free-memory --json
            "$0" list --discover-ufr --discovery-address 127.0.0.1 --discovery-port "$CARDCTL_UFR_DISCOVERY_PORT" --discovery-time 2 --json
            """
        let result = try await CardctlProcess.run([
            "simulate-ufr", "--card", "desfire,seed=5", "--", "/bin/sh", "-c", script, cardctl,
        ])
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout.components(separatedBy: "freeMemory").count == 3, "\(result)")
        #expect(result.stdout.contains("\"serial\" : \"ON123456\""), "\(result)")
        let failing = try await CardctlProcess.run(["simulate-ufr", "--", "/bin/sh", "-c", "exit 7"])
        #expect(failing.status == 7, "COMMAND's status is cardctl's: \(failing)")
    }
}
