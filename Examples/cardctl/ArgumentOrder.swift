import ArgumentParser

/// Moves global options given before the subcommand to just after it (after a nested
/// subcommand too: `cardctl --reader X iso15693 read`), so `cardctl --reader X list` and
/// `cardctl list --reader X` mean the same.
enum ArgumentOrder {
    static func normalise(_ arguments: [String], subcommands: Set<String>) -> [String] {
        var leading: [String] = []
        var result: [String] = []
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            if subcommands.contains(argument) {
                // Follow nested subcommands (e.g. `iso15693 read`) before placing the options.
                var end = index + 1
                var command = CardCtl.configuration.subcommands.first { invocationName(of: $0) == argument }
                while let current = command, end < arguments.count,
                      let nested = current.configuration.subcommands.first(where: { invocationName(of: $0) == arguments[end] }) {
                    command = nested
                    end += 1
                }
                result.append(contentsOf: arguments[index..<end])
                result.append(contentsOf: leading)
                result.append(contentsOf: arguments[end...])
                return result
            }
            let name = argument.split(separator: "=", maxSplits: 1).first.map(String.init) ?? argument
            if GlobalOptions.valueOptions.contains(name) {
                leading.append(argument)
                if !argument.contains("="), index + 1 < arguments.count {
                    leading.append(arguments[index + 1])
                    index += 1
                }
            } else if GlobalOptions.flags.contains(argument) {
                leading.append(argument)
            } else {
                result.append(argument)
            }
            index += 1
        }
        // No subcommand: leave everything for the parser to report.
        return leading + result
    }
}

/// The name a command is invoked by.
func invocationName(of command: any ParsableCommand.Type) -> String {
    command.configuration.commandName ?? String(describing: command).lowercased()
}
