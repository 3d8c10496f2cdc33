import ArgumentParser
import CardFlow

/// Options every subcommand accepts, before or after the subcommand name.
struct GlobalOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp(
        "Reader selector: usb, usb:VVVV:PPPP, usb:BUS:DEV, usb:serial=XYZ, vpcd[:HOST][:PORT] (listen for a vpcd card side such as vicc), pcsc[:NAME-PREFIX] (readers pcscd serves), or sim[:CARD][,option=value...]; CARD is iso7816, desfire, ton, ndef4, type2, iso15693, none, apdu-test (fixed answers for differential tests), or fuzz (seeded hostile answers: fuzz,seed=N[,wrap=CARD][,hostile=PERCENT][,sticky=PERCENT][,max-response=BYTES]).",
        valueName: "SELECTOR"))
    var reader: String = "sim:iso7816"

    @Flag(name: .long, help: "Print machine-readable JSON.")
    var json = false

    @Flag(name: .long, help: "Print every APDU exchanged.")
    var trace = false

    @Option(name: .long, help: ArgumentHelp("Timeout of one APDU exchange, in milliseconds.", valueName: "MS"))
    var timeout: Int?

    @Option(name: .long, help: ArgumentHelp("Pause between sessions on a reader, in milliseconds.", valueName: "MS"))
    var cooldown: Int?

    @Option(name: .long, help: ArgumentHelp("Retries of a failed step (not of a lifted card), with doubling backoff from 100 ms.", valueName: "N"))
    var retries: Int?

    @Option(name: .long, help: ArgumentHelp(
        "How long to wait for a card to arrive, or to come back when lifted mid-command, in milliseconds (default 0: fail at once).",
        valueName: "MS"))
    var wait: Int?

    @Option(name: .long, help: ArgumentHelp(
        "Talk to a running cardd through its control socket instead of opening readers (list, watch, apdu, flow, jobs).",
        valueName: "PATH"))
    var socket: String?

    @Option(name: .customLong("protocol"), help: ArgumentHelp(
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

    /// The session policy these options describe.
    var policy: SessionPolicy {
        var policy = SessionPolicy()
        policy.apduTimeout = timeout.map { .milliseconds($0) }
        policy.cooldown = .milliseconds(cooldown ?? 0)
        policy.retries = RetryPolicy(attempts: retries ?? 0, backoff: .milliseconds(100))
        policy.connectTimeout = .milliseconds(wait ?? 0)
        policy.cardReturnTimeout = .milliseconds(wait ?? 0)
        return policy
    }

    /// Names of options that take a value, and of flags, so they can be moved after the
    /// subcommand when given before it.
    static let valueOptions: Set<String> = ["--reader", "--timeout", "--cooldown", "--retries", "--wait", "--socket", "--protocol"]
    static let flags: Set<String> = ["--json", "--trace"]
}
