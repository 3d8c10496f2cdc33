/// Moves global options given before the subcommand to just after it, so
/// `cardctl --reader X list` and `cardctl list --reader X` mean the same.
enum ArgumentOrder {
    static func normalise(_ arguments: [String], subcommands: Set<String>) -> [String] {
        var leading: [String] = []
        var result: [String] = []
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            if subcommands.contains(argument) {
                result.append(argument)
                result.append(contentsOf: leading)
                result.append(contentsOf: arguments[(index + 1)...])
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
