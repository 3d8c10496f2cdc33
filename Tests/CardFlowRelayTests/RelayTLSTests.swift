import CardFlow
import CardFlowProcessTestSupport
import CardFlowRelay
import CardFlowSimulator
import Foundation
import NIOSSL
import Testing

/// wss:// with a self-signed CA generated for the test (openssl).
@Suite("Relay over TLS")
struct RelayTLSTests {
    /// A throwaway CA and a server certificate for 127.0.0.1 signed by it.
    struct Certificates {
        let directory: URL
        var caPath: String { directory.appendingPathComponent("ca.pem").path }
        var certificatePath: String { directory.appendingPathComponent("server.pem").path }
        var keyPath: String { directory.appendingPathComponent("server.key").path }

        static func generate() throws -> Certificates {
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
                "relay-tls-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            let extensions = directory.appendingPathComponent("san.ext")
            try "subjectAltName=IP:127.0.0.1,DNS:localhost\nbasicConstraints=CA:FALSE\n".write(
                to: extensions, atomically: true, encoding: .utf8)
            let steps: [[String]] = [
                [
                    "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                    "-keyout", "ca.key", "-out", "ca.pem", "-days", "2", "-subj", "/CN=CardFlow relay test CA",
                ],
                [
                    "req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                    "-keyout", "server.key", "-out", "server.csr", "-subj", "/CN=127.0.0.1",
                ],
                [
                    "x509", "-req", "-in", "server.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial",
                    "-out", "server.pem", "-days", "2", "-extfile", "san.ext",
                ],
            ]
            for arguments in steps {
                let openssl = try ChildProcess(
                    "/usr/bin/openssl", arguments, workingDirectory: directory.path, output: .null, errors: .null)
                guard openssl.waitUntilExit().status == 0 else {
                    throw RemoteProtocolError(description: "openssl \(arguments.joined(separator: " ")) failed")
                }
            }
            return Certificates(directory: directory)
        }

        func serverContext() throws -> NIOSSLContext {
            var configuration = TLSConfiguration.makeServerConfiguration(
                certificateChain: try NIOSSLCertificate.fromPEMFile(certificatePath).map { .certificate($0) },
                privateKey: .privateKey(try NIOSSLPrivateKey(file: keyPath, format: .pem)))
            configuration.minimumTLSVersion = .tlsv12
            return try NIOSSLContext(configuration: configuration)
        }
    }

    @Test("wss with the service's CA given: the sync completes; without it the certificate is refused")
    func selfSignedCA() async throws {
        let certificates = try Certificates.generate()
        defer { try? FileManager.default.removeItem(at: certificates.directory) }
        let server = try await TestRelayServer.start(
            tls: try certificates.serverContext(), behaviour: DESFireRelayService.behaviour())
        defer { Task { await server.stop() } }
        let url = "wss://localhost:\(server.port)/sync"

        let (untrustingReader, _) = try await RelayEndToEndTests.reader("sim:desfire")
        var untrusting = RelayConfiguration(url: url, aids: [DESFireRelayService.piccAID])
        untrusting.limits.idleTimeout = .seconds(5)
        let (refused, _) = await RelayEndToEndTests.sync(untrusting, on: untrustingReader)
        guard case .failure(let error) = refused, case .connectionFailed = error as? RelayError else {
            Issue.record("expected a verification failure, got \(refused)")
            return
        }

        let (reader, _) = try await RelayEndToEndTests.reader("sim:desfire")
        var trusting = untrusting
        trusting.caFile = certificates.caPath
        let (result, events) = await RelayEndToEndTests.sync(trusting, on: reader)
        #expect(try result.get().message == "provisioned")
        #expect(events.contains(.syncing(1.0)))
    }

    @Test("wss:// to an IP address is refused up front (TLS verifies a host name)")
    func ipLiteral() async throws {
        let (reader, _) = try await RelayEndToEndTests.reader("sim:desfire")
        let configuration = RelayConfiguration(url: "wss://127.0.0.1:1/sync", aids: [DESFireRelayService.piccAID])
        let (result, _) = await RelayEndToEndTests.sync(configuration, on: reader)
        guard case .failure(let error) = result, case .invalidURL = error as? RelayError else {
            Issue.record("expected invalidURL, got \(result)")
            return
        }
    }

    @Test("an unreadable CA file is a typed error")
    func badCAFile() async throws {
        let (reader, _) = try await RelayEndToEndTests.reader("sim:desfire")
        let configuration = RelayConfiguration(
            url: "wss://localhost:1/sync", caFile: "/nonexistent/ca.pem",
            aids: [DESFireRelayService.piccAID])
        let (result, _) = await RelayEndToEndTests.sync(configuration, on: reader)
        guard case .failure(let error) = result, case .invalidCAFile = error as? RelayError else {
            Issue.record("expected invalidCAFile, got \(result)")
            return
        }
    }
}
