import ArgumentParser
import CardFlow
import CardFlowDaemonControl
import Foundation

/// `cardctl watch`: reader and card events until interrupted.
struct WatchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "watch",
        abstract: "Stream reader and card events until interrupted (Ctrl-C).")

    @OptionGroup(title: "Global Options") var global: GlobalOptions

    struct Event: Encodable, Sendable {
        let reader: String
        let event: String
        let uid: String?
    }

    func run() async throws {
        if let socket = global.socket {
            try await watchDaemon(socket: socket)
            return
        }
        let logger = CommandLogging.logger(trace: global.trace)
        let connection = try await ReaderConnection.open(global, logger: logger)
        if connection.readers.isEmpty, connection.choice.source == .builtInDefault {
            // Nothing was chosen and no USB reader is there: say how to choose, not "no readers".
            try await connection.close()
            throw connection.noReaderError
        }
        let json = global.json
        @Sendable func emit(_ event: Event) {
            if json {
                try? Output.sortedJSON(event, compact: true, escapingSlashes: true)
            } else {
                Output.standardOutput("\(event.reader): \(event.event)" + (event.uid.map { " \($0)" } ?? ""))
            }
        }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for reader in connection.readers {
                emit(Event(reader: reader.info.name, event: "readerAdded", uid: nil))
                group.addTask {
                    for await presence in await reader.cardPresence() {
                        emit(
                            Event(
                                reader: reader.info.name, event: presence == .present ? "cardPresent" : "cardAbsent",
                                uid: nil))
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

    /// `--socket`: cardd's events (readers, cards, jobs) until interrupted, one per line.
    private func watchDaemon(socket: String) async throws {
        let json = global.json
        let client = try await ControlClient.connect(path: socket)
        defer { Task { await client.close() } }
        try await client.streamEvents { event in
            guard case .object(var fields) = event else { return }
            if json {
                Output.standardOutput(JSONValue.object(fields).jsonLine())
                return
            }
            let name = fields.removeValue(forKey: "event")?.stringValue ?? "event"
            let details = fields.sorted { $0.key < $1.key }.map {
                "\($0.key)=\($0.value.stringValue ?? $0.value.jsonLine())"
            }
            Output.standardOutput(([name] + details).joined(separator: " "))
        }
    }
}
