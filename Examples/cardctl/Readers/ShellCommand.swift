import ArgumentParser
import CardFlow
import Foundation

/// `cardctl shell`: one session; one hex APDU per stdin line, one answer line per APDU.
struct ShellCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "shell",
        abstract: "Read one hex APDU per line on stdin; write each answer (data then SW, hex) on one line.",
        discussion:
            "Empty lines and lines starting with # are skipped. A bad line gets an 'error: …' line and the session goes on."
    )

    @OptionGroup(title: "Global Options") var global: GlobalOptions

    @Flag(name: .long, help: "Do not follow 61xx with GET RESPONSE nor re-issue on 6Cxx.")
    var raw = false

    func run() async throws {
        let session = try await CommandSession.start(global, traceToStandardError: true)
        do {
            for await line in StandardInputLines.stream() {
                let text = line.trimmingCharacters(in: .whitespaces)
                if text.isEmpty || text.hasPrefix("#") { continue }
                do {
                    let command = try CommandAPDU(hex: text)
                    let response =
                        raw ? try await session.channel.transmit(command) : try await session.channel.send(command)
                    Output.standardOutput(response.encoded().hexString)
                } catch is CancellationError {
                    throw CancellationError()
                } catch {
                    Output.standardOutput("error: \(error)")
                }
            }
            try Task.checkCancellation()
        } catch {
            try? await session.end()
            throw error
        }
        try await session.end()
    }
}

/// Lines of standard input, read on a thread of their own so the blocking read never occupies
/// a Swift concurrency thread.
enum StandardInputLines {
    static func stream() -> AsyncStream<String> {
        AsyncStream { continuation in
            let thread = Thread {
                while let line = readLine(strippingNewline: true) {
                    continuation.yield(line)
                }
                continuation.finish()
            }
            thread.start()
        }
    }
}
