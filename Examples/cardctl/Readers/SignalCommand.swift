import ArgumentParser
import CardFlow

/// `cardctl signal --light green --beep short`: the reader's light and buzzer, for the person at
/// the reader (uFR readers, and USB CCID or PC/SC readers of a family with a signal dialect:
/// ACS ACR122U, ACR1252U; others say they have none, exit 2).
struct SignalCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "signal",
        abstract:
            "Show a light and sound a beep on the reader (readers with a LED and buzzer CardFlow drives: uFR, ACS ACR122U, ACS ACR1252U).",
        discussion: """
            --success is --light green --beep short; --failure is --light red --beep long. A reader whose \
            backend or family has no signal (or not this one: the ACR1252U cannot blink) exits 2 and says so. \
            Under pcscd, libccid passes the escape commands on only when its Info.plist's ifdDriverOptions \
            has 0x0001 set.
            """)

    @OptionGroup(title: "Global Options") var global: GlobalOptions

    @Option(help: "The light: \(ReaderSignal.Light.allCases.map(\.rawValue).joined(separator: ", ")).")
    var light: ReaderSignal.Light?

    @Option(help: "The beep: \(ReaderSignal.Beep.allCases.map(\.rawValue).joined(separator: ", ")).")
    var beep: ReaderSignal.Beep?

    @Flag(help: "The success signal (a long green light, one short beep).") var success = false
    @Flag(help: "The failure signal (a long red light, one long beep).") var failure = false

    struct Signalled: Encodable {
        let reader: String
        let light: ReaderSignal.Light
        let beep: ReaderSignal.Beep
    }

    func validate() throws {
        let presets = (success ? 1 : 0) + (failure ? 1 : 0)
        guard presets <= 1, presets == 0 || (light == nil && beep == nil) else {
            throw ValidationError("give --success, --failure, or --light/--beep, one of them")
        }
        guard presets == 1 || light != nil || beep != nil else {
            throw ValidationError("say what to show: --light, --beep, --success or --failure")
        }
    }

    func run() async throws {
        let signal =
            success
            ? ReaderSignal.success
            : failure ? ReaderSignal.failure : ReaderSignal(light: light ?? .none, beep: beep ?? .none)
        let logger = CommandLogging.logger(trace: global.trace)
        let connection = try await ReaderConnection.open(global, logger: logger)
        let reader = try connection.primary
        do {
            try await reader.signal(signal)
        } catch {
            try? await connection.close()
            throw error
        }
        try await connection.close()
        if global.json {
            try Output.json(Signalled(reader: reader.info.id, light: signal.light, beep: signal.beep))
        } else {
            Output.standardOutput("\(reader.info.id): \(signal)")
        }
    }
}

extension ReaderSignal.Light: ExpressibleByArgument {}
extension ReaderSignal.Beep: ExpressibleByArgument {}
