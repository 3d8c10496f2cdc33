import CardFlow
import CardFlowBenchSupport
import CardFlowCCIDProtocol
import CardFlowDESFire

/// Loops for profilers (`perf record`, `valgrind --tool=callgrind`): `count` repetitions of one
/// benchmark's measured body, after a short warm-up, so that per-APDU costs dominate the profile.
/// `cardflow-bench --profile NAME N`; the names follow the package-benchmark ones.
enum ProfileLoop: String, CaseIterable {
    case driverShort = "Driver-Short-5-2"
    case driverShortLong = "Driver-Short-255-256"
    case driverTPDU = "Driver-TPDU-5-2"
    case driverTPDULong = "Driver-TPDU-255-256"
    case sessionTraceOff = "Session-TraceOff-Short-5-2"
    case sessionTraceOn = "Session-TraceOn-Short-5-2"
    case sessionTraceOnLong = "Session-TraceOn-Short-255-256"
    case flow = "Flow-TraceOff-Short-5-2"
    case desfireRead = "DESFire-ReadData-Enc-32B"
    case sunVerify = "SUN-VerifyURL"

    func run(count: Int) async throws {
        switch self {
        case .driverShort: try await driver(.shortAPDU, .tiny, count)
        case .driverShortLong: try await driver(.shortAPDU, .maxShort, count)
        case .driverTPDU: try await driver(.tpdu, .tiny, count)
        case .driverTPDULong: try await driver(.tpdu, .maxShort, count)
        case .sessionTraceOff: try await session(.tiny, traced: false, count)
        case .sessionTraceOn: try await session(.tiny, traced: true, count)
        case .sessionTraceOnLong: try await session(.maxShort, traced: true, count)
        case .flow:
            let reader = await makeReader(level: .shortAPDU, exchange: .tiny, logLevel: .info)
            let command = Exchange.tiny.command
            for _ in 0..<count {
                let flow = Flow.start("batch") { session in
                    for _ in 0..<100 { _ = try await session.transmit(command) }
                    return 100
                }
                _ = try await reader.run(flow).value
            }
        case .desfireRead:
            let (client, session) = try await DESFireBench.authenticatedClient(commMode: .enciphered)
            for _ in 0..<count {
                _ = try await client.readData(file: DESFireBench.file, offset: 0, length: 32, commMode: .enciphered)
            }
            await session.close()
        case .sunVerify:
            // StackBench's SUN body: AN12196's example URL, keys 16 × 00, one URL per repetition.
            let url = "https://ntag.nxp.com/424?e=EF963FF7828658A599F3041510671E88&c=94EED9EE65337086"
            let verifier = try NTAG424SUNVerifier(
                metaReadKey: [UInt8](repeating: 0, count: 16), fileReadKey: [UInt8](repeating: 0, count: 16))
            for _ in 0..<count { _ = try verifier.verify(try NTAG424SUNURLParameters(url: url)) }
        }
    }

    private func driver(_ level: CCIDExchangeLevel, _ exchange: Exchange, _ count: Int) async throws {
        let driver = try await makePoweredDriver(level: level, exchange: exchange)
        for _ in 0..<count { check(try await driver.transmit(exchange.command.encoded()), exchange) }
    }

    private func session(_ exchange: Exchange, traced: Bool, _ count: Int) async throws {
        let reader = await makeReader(level: .shortAPDU, exchange: exchange, logLevel: traced ? .trace : .info)
        let session = try await reader.connect()
        for _ in 0..<count { _ = try await session.transmit(exchange.command) }
        await session.close()
    }
}
