import ArgumentParser
import CardFlow
import Foundation

/// `cardctl apdu HEX...`: sends APDUs in one session and prints the answers.
struct APDUCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "apdu",
        abstract: "Send command APDUs (hex) to the card in one session and print each answer.",
        discussion: "Exit status is 0 whenever the card answered, whatever the status word, unless --expect-sw says otherwise.")

    @OptionGroup var global: GlobalOptions

    @Option(name: .customLong("expect-sw"), help: ArgumentHelp("Fail (exit 1) when an answer has another status word.", valueName: "SW"))
    var expectedStatus: String?

    @Flag(name: .long, help: "Do not follow 61xx with GET RESPONSE nor re-issue on 6Cxx.")
    var raw = false

    @Argument(help: ArgumentHelp("Command APDUs in hex (spaces allowed inside a quoted argument).", valueName: "HEX"))
    var apdus: [String]

    struct Answer: Encodable {
        let command: String
        let data: String
        let sw: String
        let meaning: String?
    }

    func run() async throws {
        guard !apdus.isEmpty else { throw InputError(description: "give at least one APDU in hex") }
        let commands = try apdus.map { text in try CommandAPDU(hex: text) }
        let expected = try expectedStatus.map { text in
            guard let value = UInt16(text, radix: 16), text.count == 4 else {
                throw InputError(description: "--expect-sw takes four hex digits, like 9000; got '\(text)'")
            }
            return StatusWord(value)
        }
        let session = try await CommandSession.start(global, traceToStandardError: global.json)
        var answers: [Answer] = []
        var failure: (any Error)?
        do {
            for command in commands {
                let response = raw ? try await session.channel.transmit(command) : try await session.channel.send(command)
                let answer = Answer(command: command.encoded().hexString, data: response.data.hexString,
                                    sw: response.statusWord.hexString, meaning: response.statusWord.meaning)
                answers.append(answer)
                if !global.json {
                    Output.standardOutput(answer.data.isEmpty ? answer.sw : "\(answer.data) \(answer.sw)")
                }
                if let expected, response.statusWord != expected {
                    throw ExpectedStatusMismatch(expected: expected, received: response.statusWord, command: command)
                }
            }
        } catch {
            failure = error
        }
        try await session.end()
        if global.json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            Output.standardOutput(String(decoding: try encoder.encode(answers), as: UTF8.self))
        }
        if let failure { throw failure }
    }
}
