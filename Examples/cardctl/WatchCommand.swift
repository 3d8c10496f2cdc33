import ArgumentParser
import CardFlow
import Foundation

/// `cardctl watch`: reader and card events until interrupted.
struct WatchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "watch",
        abstract: "Stream reader and card events until interrupted (Ctrl-C).")

    @OptionGroup var global: GlobalOptions

    struct Event: Encodable, Sendable {
        let reader: String
        let event: String
        let uid: String?
    }

    func run() async throws {
        let logger = CommandLogging.logger(trace: global.trace)
        let connection = try await ReaderConnection.open(global, logger: logger)
        let json = global.json
        @Sendable func emit(_ event: Event) {
            if json {
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.sortedKeys]
                if let data = try? encoder.encode(event) { Output.standardOutput(String(decoding: data, as: UTF8.self)) }
            } else {
                Output.standardOutput("\(event.reader): \(event.event)" + (event.uid.map { " \($0)" } ?? ""))
            }
        }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for reader in connection.readers {
                emit(Event(reader: reader.info.name, event: "readerAdded", uid: nil))
                group.addTask {
                    for await presence in await reader.cardPresence() {
                        emit(Event(reader: reader.info.name, event: presence == .present ? "cardPresent" : "cardAbsent", uid: nil))
                    }
                    // The stream also ends when watch is interrupted; that is not a removal.
                    if !Task.isCancelled { emit(Event(reader: reader.info.name, event: "readerRemoved", uid: nil)) }
                }
            }
            try await group.waitForAll()
        }
        try Task.checkCancellation()
        try await connection.close()
    }
}
