import CardFlow
import CardFlowCCID
import CardFlowCCIDProtocol
import Foundation

/// One card session on the primary reader, for `shell`.
struct CommandSession {
    let connection: ReaderConnection
    let session: CardSession
    let channel: any CardChannel

    static func start(_ global: GlobalOptions, traceToStandardError: Bool) async throws -> CommandSession {
        let logger = CommandLogging.logger(trace: global.trace)
        let connection = try await ReaderConnection.open(
            global, logger: logger,
            traceToStandardError: traceToStandardError)
        let session = try await connection.primary.connect(policy: global.policy(for: connection.primary))
        return CommandSession(connection: connection, session: session, channel: session)
    }

    /// Powers the card off (it may be gone already) and saves simulated state.
    func end() async throws {
        await session.close()
        try await connection.close()
    }
}
