import ArgumentParser

/// `-j`/`--json`. One type for the global option and for the commands that take no other global
/// option (`key list`, `ndef decode`): ArgumentParser hands every `@OptionGroup` of this type the
/// value the root command parsed, wherever on the line the flag was given.
struct JSONOption: ParsableArguments {
    @Flag(name: [.customShort("j"), .long], help: "Print machine-readable JSON.")
    var json = false
}
