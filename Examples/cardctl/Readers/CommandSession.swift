import CCID
import CardFlow
import CardFlowCCID
import Foundation

#if canImport(Glibc)
import Glibc
#endif

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
        let session = try await connection.primary.connect(policy: global.policy)
        return CommandSession(connection: connection, session: session, channel: session)
    }

    /// Powers the card off (it may be gone already) and saves simulated state.
    func end() async throws {
        await session.close()
        try await connection.close()
    }
}

/// Line output, flushed per line so pipes see answers at once.
enum Output {
    static let standardOutput: @Sendable (String) -> Void = { line in write(line, to: STDOUT_FILENO) }
    static let standardError: @Sendable (String) -> Void = { line in write(line, to: STDERR_FILENO) }

    /// Writes the whole line. A reader that went away (`cardctl watch | head`) ends cardctl
    /// quietly, as it would any Unix filter, instead of trapping in FileHandle.
    private static func write(_ line: String, to descriptor: Int32) {
        let bytes = Array((line + "\n").utf8)
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { buffer in
                Glibc.write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
            }
            if written >= 0 {
                offset += written
            } else if errno == EINTR || errno == EAGAIN {
                continue
            } else if errno == EPIPE {
                exit(descriptor == STDOUT_FILENO ? 0 : 1)
            } else {
                return
            }
        }
    }
}
