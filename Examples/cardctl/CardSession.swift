import CCID
import CardFlow
import Foundation

/// One powered card session on the primary reader, for `apdu` and `shell`.
struct CommandSession {
    let connection: ReaderConnection
    let channel: any CardChannel
    let driver: CCIDDriver

    static func start(_ global: GlobalOptions, traceToStandardError: Bool) async throws -> CommandSession {
        let logger = CommandLogging.logger(trace: global.trace)
        let connection = try await ReaderConnection.open(global, logger: logger)
        let driver = try connection.primary.driver
        _ = try await driver.powerOn()
        var channel: any CardChannel = CCIDCardChannel(driver: driver)
        if global.trace {
            channel = TracingChannel(base: channel, write: traceToStandardError ? Output.standardError : Output.standardOutput)
        }
        return CommandSession(connection: connection, channel: channel, driver: driver)
    }

    /// Powers the card off (it may be gone already) and saves simulated state.
    func end() async throws {
        try? await driver.powerOff()
        try await connection.close()
    }
}

/// Line output, flushed per line so pipes see answers at once.
enum Output {
    static let standardOutput: @Sendable (String) -> Void = { line in
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }
    static let standardError: @Sendable (String) -> Void = { line in
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }
}
