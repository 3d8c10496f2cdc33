import CardFlow
import CardFlowBenchSupport
import CardFlowCCIDProtocol
import CardFlowDESFire
import CardFlowSimulator
import Foundation

/// Loops for profilers (`perf record`, `valgrind --tool=callgrind`): `count` repetitions of one
/// benchmark's measured body, after a short warm-up, so that per-APDU costs dominate the profile.
/// `cardflow-bench --profile NAME N`; the names follow the package-benchmark ones.
enum ProfileLoop: String, CaseIterable {
    case driverShort = "Driver-Short-5-2"
    case driverShortLong = "Driver-Short-255-256"
    case driverTPDU = "Driver-TPDU-5-2"
    case driverTPDULong = "Driver-TPDU-255-256"
    case driverCharacter = "Driver-Character-5-2"
    case driverCharacterLong = "Driver-Character-255-256"
    case driverCharacterT0 = "Driver-Character-T0-5-2"
    case driverCharacterT0Long = "Driver-Character-T0-255-256"
    case driverTPDUT0 = "Driver-TPDU-T0-5-2"
    case driverTPDUT0Long = "Driver-TPDU-T0-255-256"
    case driverNull = "Driver-Null-5-2"
    case sessionTraceOff = "Session-TraceOff-Short-5-2"
    case sessionTraceOn = "Session-TraceOn-Short-5-2"
    case sessionTraceOnLong = "Session-TraceOn-Short-255-256"
    case flow = "Flow-TraceOff-Short-5-2"
    case desfireRead = "DESFire-ReadData-Enc-32B"
    case desfireWrite = "DESFire-WriteData-Enc-32B"
    case desfireEV2Read = "DESFire-EV2-ReadData-Full-32B"
    case desfireEV2Write = "DESFire-EV2-WriteData-Full-32B"
    case sunVerify = "SUN-VerifyURL"

    func run(count: Int) async throws {
        switch self {
        case .driverShort: try await driver(.shortAPDU, .tiny, count)
        case .driverShortLong: try await driver(.shortAPDU, .maxShort, count)
        case .driverTPDU: try await driver(.tpdu, .tiny, count)
        case .driverTPDULong: try await driver(.tpdu, .maxShort, count)
        case .driverCharacter: try await driver(.character, .tiny, count)
        case .driverCharacterLong: try await driver(.character, .maxShort, count)
        case .driverCharacterT0: try await driver(.character, .tiny, count, contact: .t0Only())
        case .driverCharacterT0Long: try await driver(.character, .maxShort, count, contact: .t0Only())
        case .driverTPDUT0: try await driver(.tpdu, .tiny, count, contact: .t0Only())
        case .driverTPDUT0Long: try await driver(.tpdu, .maxShort, count, contact: .t0Only())
        case .driverNull:
            let driver = try await makePoweredNullDriver(exchange: .tiny)
            for _ in 0..<count { check(try await driver.transmit(Exchange.tiny.command.encoded()), .tiny) }
        case .sessionTraceOff: try await session(.tiny, traced: false, count)
        case .sessionTraceOn: try await session(.tiny, traced: true, count)
        case .sessionTraceOnLong: try await session(.maxShort, traced: true, count)
        case .flow:
            let reader = await makeReader(level: .shortAPDU, exchange: .tiny, logLevel: .info)
            let command = Exchange.tiny.command
            // CARDFLOW_PROFILE_FLOW_APDUS=0 leaves a flow run's fixed cost alone in the profile.
            let apdus = ProcessInfo.processInfo.environment["CARDFLOW_PROFILE_FLOW_APDUS"].flatMap(Int.init) ?? 100
            // CARDFLOW_PROFILE_FLOW_STEPS=N chains N such steps per run (with APDUS=0: the cost of a step).
            let steps = ProcessInfo.processInfo.environment["CARDFLOW_PROFILE_FLOW_STEPS"].flatMap(Int.init) ?? 1
            let step: @Sendable (CardSession) async throws -> Int = { session in
                for _ in 0..<apdus { _ = try await session.transmit(command) }
                return apdus
            }
            let flow = Flow.start("batch", step)
                .then(forEach: Array(1..<max(steps, 1)), name: { index, _ in "batch \(index + 2)" }) { _, _, session in
                    try await step(session)
                }
            for _ in 0..<count { _ = try await reader.run(flow).value }
        case .desfireRead: try await desfire(ev2: false, write: false, count)
        case .desfireWrite: try await desfire(ev2: false, write: true, count)
        case .desfireEV2Read: try await desfire(ev2: true, write: false, count)
        case .desfireEV2Write: try await desfire(ev2: true, write: true, count)
        case .sunVerify:
            // StackBench's SUN body: AN12196's example URL, keys 16 × 00, one URL per repetition.
            let url = "https://ntag.nxp.com/424?e=EF963FF7828658A599F3041510671E88&c=94EED9EE65337086"
            let verifier = try NTAG424SUNVerifier(
                metaReadKey: [UInt8](repeating: 0, count: 16), fileReadKey: [UInt8](repeating: 0, count: 16))
            for _ in 0..<count { _ = try verifier.verify(try NTAG424SUNURLParameters(url: url)) }
        }
    }

    private func driver(
        _ level: CCIDExchangeLevel, _ exchange: Exchange, _ count: Int, contact: ContactInterface? = nil
    ) async throws {
        let driver = try await makePoweredDriver(level: level, exchange: exchange, contact: contact)
        for _ in 0..<count { check(try await driver.transmit(exchange.command.encoded()), exchange) }
    }

    /// StackBench's DESFire bodies at 32 bytes: enciphered ReadData or WriteData after
    /// AuthenticateAES (EV1 secure messaging) or, with `ev2`, after AuthenticateEV2First (CommMode.Full).
    private func desfire(ev2: Bool, write: Bool, _ count: Int) async throws {
        let (client, session) = try await DESFireBench.authenticatedClient(commMode: .enciphered)
        if ev2 { try await client.authenticateEV2First(keyNumber: 0, key: .defaultAES) }
        let data = (0..<32).map { UInt8(truncatingIfNeeded: $0) }
        for _ in 0..<count {
            if write {
                try await client.writeData(file: DESFireBench.file, offset: 0, data: data, commMode: .enciphered)
            } else {
                _ = try await client.readData(file: DESFireBench.file, offset: 0, length: 32, commMode: .enciphered)
            }
        }
        await session.close()
    }

    private func session(_ exchange: Exchange, traced: Bool, _ count: Int) async throws {
        let reader = await makeReader(level: .shortAPDU, exchange: exchange, logLevel: traced ? .trace : .info)
        let session = try await reader.connect()
        for _ in 0..<count { _ = try await session.transmit(exchange.command) }
        await session.close()
    }
}
