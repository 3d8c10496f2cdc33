import ArgumentParser
import Foundation

/// `cardctl doctor`: what to run when nothing works.
struct DoctorCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "doctor",
        abstract:
            "Check what cardctl needs: USB readers and who holds them, permissions, pcscd, vpcd, key store, cardd.",
        discussion: """
            Each check is ok, warning or problem, with a one-line fix. Lists the USB CCID readers and whether \
            each can be claimed; names the program (pcscd…) or kernel driver (pn533_usb…) holding a busy one; \
            checks the udev rule (\(DoctorChecks.udevRuleName)) and the device nodes' permissions, pcscd's socket, \
            the vpcd port, the key store's permissions and cardd's socket (--socket, or its default). \
            Needs no root; as root it can also name other users' programs. Exit status 1 when a check finds a problem.
            """)

    @OptionGroup(title: "Global Options") var global: GlobalOptions

    @Option(
        name: .customLong("key-store"),
        help: ArgumentHelp(
            "The key store to check (default: the default key store).",
            valueName: "PATH"))
    var keyStore: String?

    func run() async throws {
        let probe = DoctorProbe(logger: CommandLogging.logger(trace: global.trace))
        let facts = probe.gather(global: global, keyStorePath: keyStore)
        let checks = DoctorChecks.evaluate(facts)
        if global.json {
            try Output.sortedJSON(checks)
        } else {
            for check in checks {
                let mark =
                    switch check.status {
                    case .ok: "ok     "
                    case .warning: "warning"
                    case .problem: "PROBLEM"
                    }
                Output.standardOutput("\(mark) \(check.name): \(check.summary)")
                if let fix = check.fix, check.status != .ok { Output.standardOutput("        fix: \(fix)") }
            }
        }
        if checks.contains(where: { $0.status == .problem }) { throw ExitCode(ExitStatus.cardError.rawValue) }
    }
}
