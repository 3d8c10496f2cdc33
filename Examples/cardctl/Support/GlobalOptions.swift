import ArgumentParser
import CardFlow
import Foundation

/// Options every subcommand accepts, before or after the subcommand name.
///
/// The root command (``CardCtl``) and each subcommand declare `@OptionGroup var global:
/// GlobalOptions`. ArgumentParser parses the root's group from the whole command line (options
/// before and after the subcommand name alike) and hands that same value to the subcommand's
/// group, so `cardctl -r sim list` and `cardctl list -r sim` mean the same.
struct GlobalOptions: ParsableArguments {
    @Option(
        name: [.customShort("r"), .long],
        help: ArgumentHelp(
            "Reader selector: usb, usb:VVVV:PPPP, usb:BUS:DEV, usb:serial=XYZ, vpcd[:HOST][:PORT] (listen for a vpcd card side such as vicc), pcsc[:NAME-PREFIX] (readers pcscd serves), or sim[:CARD][,option=value...]; CARD is iso7816, desfire, ton, ndef4, type2, iso15693, ntag213, ntag215, ntag216, ultralight-ev1, none, apdu-test (fixed answers for differential tests), or fuzz (seeded hostile answers: fuzz,seed=N[,wrap=CARD][,hostile=PERCENT][,sticky=PERCENT][,max-response=BYTES]). Default: $CARDCTL_READER, else \"reader\" in $XDG_CONFIG_HOME/cardflow/cardctl.json (~/.config/cardflow/cardctl.json), else the first USB CCID reader.",
            valueName: "SELECTOR"))
    var reader: String?

    @OptionGroup var output: JSONOption

    @Flag(name: [.customShort("v"), .long], help: "Print every APDU exchanged.")
    var trace = false

    @Option(name: .long, help: ArgumentHelp("Timeout of one APDU exchange, in milliseconds.", valueName: "MS"))
    var timeout: Int?

    @Option(name: .long, help: ArgumentHelp("Pause between sessions on a reader, in milliseconds.", valueName: "MS"))
    var cooldown: Int?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Retries of a failed step (not of a lifted card), with doubling backoff from 100 ms.", valueName: "N"))
    var retries: Int?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "How long to wait for a card to arrive, or to come back when lifted mid-command, in milliseconds (default 0: fail at once; a vpcd reader waits 30 s for its card side to connect).",
            valueName: "MS"))
    var wait: Int?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Talk to a running cardd through its control socket instead of opening readers (list, watch, apdu, flow, jobs).",
            valueName: "PATH"))
    var socket: String?

    @Option(
        name: .customLong("protocol"),
        help: ArgumentHelp(
            "Transmission protocol for contact cards: auto (T=1 when card and reader offer it, else T=0), t0 or t1.",
            valueName: "auto|t0|t1"))
    var transmissionProtocol: String?

    func validate() throws {
        if let transmissionProtocol, !["auto", "t0", "t1"].contains(transmissionProtocol) {
            throw ValidationError("--protocol must be auto, t0 or t1")
        }
        if let timeout, timeout <= 0 { throw ValidationError("--timeout must be a positive number of milliseconds") }
        if let cooldown, cooldown < 0 { throw ValidationError("--cooldown must be 0 or more milliseconds") }
        if let retries, retries < 0 { throw ValidationError("--retries must be 0 or more") }
        if let wait, wait < 0 { throw ValidationError("--wait must be 0 or more milliseconds") }
    }

    /// The session policy these options describe, for `reader`: without `--wait`, a reader that
    /// waits for its card by default (a vpcd listener's card side connects on its own) waits
    /// that long.
    func policy(for reader: Reader) -> SessionPolicy {
        var policy = self.policy
        if wait == nil, let defaultWait = reader.info.capabilities.defaultCardWait {
            policy.connectTimeout = defaultWait
            policy.cardReturnTimeout = defaultWait
        }
        return policy
    }

    /// The session policy these options describe, whatever the reader.
    var policy: SessionPolicy {
        var policy = SessionPolicy()
        policy.apduTimeout = timeout.map { .milliseconds($0) }
        policy.cooldown = .milliseconds(cooldown ?? 0)
        policy.retries = RetryPolicy(attempts: retries ?? 0, backoff: .milliseconds(100))
        policy.connectTimeout = .milliseconds(wait ?? 0)
        policy.cardReturnTimeout = .milliseconds(wait ?? 0)
        return policy
    }

    /// `-j`/`--json`.
    var json: Bool { output.json }

    /// The reader to use: `--reader`, `CARDCTL_READER`, cardctl.json's `reader`, or the first
    /// USB CCID reader.
    func readerChoice(environment: [String: String] = ProcessInfo.processInfo.environment) throws -> ReaderChoice {
        try ReaderChoice.resolve(option: reader, environment: environment) {
            guard let path = CardctlConfiguration.defaultPath(environment: environment),
                let file = try CardctlConfiguration.load(path: path)
            else { return nil }
            return (path, file)
        }
    }

    /// The cardd reader id that `--socket` work goes to: a chosen reader, never the USB default.
    func daemonReaderID() throws -> String {
        let choice = try readerChoice()
        guard choice.source != .builtInDefault else { throw ReaderSelectionError.noDaemonReader }
        return choice.selector
    }
}
