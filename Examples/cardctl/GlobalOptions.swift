import ArgumentParser

/// Options every subcommand accepts, before or after the subcommand name.
struct GlobalOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp(
        "Reader selector: usb, usb:VVVV:PPPP, usb:BUS:DEV, or sim[:CARD][,option=value...].",
        valueName: "SELECTOR"))
    var reader: String = "sim:iso7816"

    @Flag(name: .long, help: "Print machine-readable JSON.")
    var json = false

    @Flag(name: .long, help: "Print every APDU exchanged.")
    var trace = false

    @Option(name: .long, help: ArgumentHelp("Timeout of one reader exchange, in milliseconds.", valueName: "MS"))
    var timeout: Int?

    func validate() throws {
        if let timeout, timeout <= 0 { throw ValidationError("--timeout must be a positive number of milliseconds") }
    }

    /// Names of options that take a value, and of flags, so they can be moved after the
    /// subcommand when given before it.
    static let valueOptions: Set<String> = ["--reader", "--timeout"]
    static let flags: Set<String> = ["--json", "--trace"]
}
