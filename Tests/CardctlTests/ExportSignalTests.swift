import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// `cardctl export` stopped by a service manager or `kill` (issue 35, item 4): SIGTERM and
/// SIGHUP stop it as Ctrl-C does, so the simulated card's `state=` file is written.
@Suite("cardctl export: stopping signals save the card's state")
struct ExportSignalTests {
    @Test(
        "SIGTERM, SIGHUP and SIGINT each leave the state= file written, exit 128 + signal (130 for SIGINT)",
        arguments: [SIGTERM, SIGHUP, SIGINT])
    func stopSignalSavesState(signal: Int32) async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { Fixtures.removeDirectory(directory) }
        let state = directory.appendingPathComponent("card.json")
        // Nothing listens on port 1: the exporter keeps retrying until it is stopped.
        let run = try CardctlProcess(["export", "--reader", "sim:desfire,state=\(state.path)", "--to", "127.0.0.1:1"])
        let announced = await run.nextErrorLine(timeout: .seconds(30))
        try #require(
            announced?.contains("exporting the card") == true, "no start line: \(String(describing: announced))")
        #expect(!FileManager.default.fileExists(atPath: state.path))
        run.send(signal: signal)
        let result = try await run.waitForExit(timeout: .seconds(20))
        #expect(result.status == 128 + signal, "\(result)")
        #expect(FileManager.default.fileExists(atPath: state.path), "state file not written: \(result)")
        let saved = try String(contentsOf: state, encoding: .utf8)
        #expect(saved.contains("desfire"), "\(saved.prefix(200))")
    }
}
