import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// `cardctl --reader vpcd:PORT` listens for a card side: without `--wait` it waits for one,
/// bounded (issue 35, item 7), instead of failing at once.
@Suite("cardctl with a vpcd reader waits for the card side")
struct VPCDWaitTests {
    /// A TCP port nothing listens on right now (bound to 0 and released).
    static func freePort() throws -> Int {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw CardctlHarnessError(description: "socket() failed") }
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { generic in
                bind(descriptor, generic, length) == 0 && getsockname(descriptor, generic, &length) == 0
            }
        }
        guard bound else { throw CardctlHarnessError(description: "bind() failed") }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    @Test("apdu over vpcd:PORT without --wait waits for the card side that connects after it started")
    func apduWaitsForTheCardSide() async throws {
        let port = try Self.freePort()
        // The card side first: it finds no reader and retries with growing pauses, so it is
        // not there yet when the apdu command starts listening.
        let exporter = try CardctlProcess(["export", "--reader", "sim:iso7816", "--to", "127.0.0.1:\(port)"])
        defer { exporter.send(signal: SIGKILL) }
        let announced = await exporter.nextErrorLine(timeout: .seconds(30))
        try #require(announced?.contains("exporting the card") == true, "\(String(describing: announced))")
        let result = try await CardctlProcess.run(
            ["--reader", "vpcd:127.0.0.1:\(port)", "apdu", Card.selectApplication], timeout: .seconds(60))
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout.contains(Card.applicationFCI + " 9000"), "\(result)")
        exporter.send(signal: SIGTERM)
        _ = try await exporter.waitForExit(timeout: .seconds(20))
    }

    @Test("with --wait the wait is the user's, and the message says how long it waited")
    func explicitWaitIsHonoured() async throws {
        let port = try Self.freePort()
        let result = try await CardctlProcess.run(
            ["--reader", "vpcd:127.0.0.1:\(port)", "--wait", "300", "apdu", Card.selectApplication])
        #expect(result.status == 1, "\(result)")
        #expect(result.stderr.contains("after waiting 0.3 seconds"), "\(result)")
    }
}
