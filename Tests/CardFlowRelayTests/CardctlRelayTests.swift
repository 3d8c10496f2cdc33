import CardFlowProcessTestSupport
import Foundation
import Testing

/// `cardctl relay` (the built executable) against the test service.
@Suite("cardctl relay")
struct CardctlRelayTests {
    struct Run {
        let status: Int32
        let stdout: String
        let stderr: String
    }

    /// The cardctl built next to this test product.
    static func executable() throws -> URL {
        var starts: [URL] = Bundle.allBundles.filter { $0.bundlePath.hasSuffix(".xctest") }.map {
            $0.bundleURL.deletingLastPathComponent()
        }
        if let resolved = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
            starts.append(URL(fileURLWithPath: resolved).deletingLastPathComponent())
        }
        for start in starts {
            var directory = start
            for _ in 0..<4 {
                let candidate = directory.appendingPathComponent("cardctl")
                if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
                directory = directory.deletingLastPathComponent()
            }
        }
        throw RemoteProtocolError(description: "cardctl not found next to the test product")
    }

    /// Runs cardctl to completion (its output collected by threads, so no pipe can fill up).
    static func cardctl(_ arguments: [String]) async throws -> Run {
        // A bound against a hang, not a time the tests measure.
        let result = try await ChildProcess.run(executable().path, arguments, timeout: .seconds(120))
        return Run(status: result.status, stdout: result.outputText, stderr: result.errorText)
    }

    @Test("a lifted and returned card: the sync completes with progress and a resume")
    func liftedCard() async throws {
        let server = try await TestRelayServer.start(behaviour: DESFireRelayService.behaviour())
        defer { Task { await server.stop() } }
        let run = try await Self.cardctl([
            "--reader", "sim:desfire,lift-after=5,return-after=300", "relay",
            "--url", server.url, "--aid", "D2760000850100", "--token", "t0k3n", "--json",
        ])
        #expect(run.status == 0, "\(run.stderr)")
        let object = try #require(
            try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any], "\(run.stdout)")
        #expect(object["ok"] as? Bool == true)
        #expect(object["resumes"] as? Int == 1)
        #expect(object["message"] as? String == "provisioned")
        #expect(run.stderr.contains("[####################] 100%"))
        #expect(run.stderr.contains("card back"))
        #expect(await server.log.authorizations == ["Bearer t0k3n"])
    }

    @Test("an unsupported card: exit 1, the service is not contacted")
    func unsupported() async throws {
        let server = try await TestRelayServer.start(behaviour: DESFireRelayService.behaviour())
        defer { Task { await server.stop() } }
        let run = try await Self.cardctl(["--reader", "sim:desfire", "relay", "--url", server.url, "--json"])
        #expect(run.status == 1)
        #expect(run.stdout.contains(#""error":"unsupportedCard""#))
        #expect(await server.log.connections == 0)
    }

    @Test("bad options exit 2; no service listening exits 3")
    func failures() async throws {
        let badURL = try await Self.cardctl([
            "--reader", "sim:desfire", "relay", "--url", "http://example.com/sync",
            "--aid", "D2760000850100",
        ])
        #expect(badURL.status == 2, "\(badURL.stderr)")
        let badAID = try await Self.cardctl([
            "--reader", "sim:desfire", "relay", "--url", "ws://127.0.0.1:1/sync", "--aid", "D27",
        ])
        #expect(badAID.status == 2, "\(badAID.stderr)")
        let refused = try await Self.cardctl([
            "--reader", "sim:desfire", "relay", "--url", "ws://127.0.0.1:1/sync",
            "--aid", "D2760000850100", "--json",
        ])
        #expect(refused.status == 3, "\(refused.stderr)")
        #expect(refused.stdout.contains(#""error":"connectionFailed""#))
    }
}
