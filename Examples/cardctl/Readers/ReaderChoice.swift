/// The reader selector a command uses, and what chose it: `--reader`, then `CARDCTL_READER`,
/// then the configuration file's `reader`, then the first USB CCID reader. Never the simulator
/// unless asked for: a simulated card answering for a missing reader would hide the problem.
struct ReaderChoice: Equatable, Sendable, CustomStringConvertible {
    enum Source: Equatable, Sendable {
        case option
        case environment
        case configurationFile(path: String)
        /// Nothing was chosen: the first USB CCID reader.
        case builtInDefault
    }

    static let environmentVariable = "CARDCTL_READER"
    /// The selector used when nothing was chosen.
    static let builtInSelector = "usb"

    let selector: String
    let source: Source

    /// Picks the selector. `configuration` is only read when neither the option nor the
    /// environment variable gives one.
    static func resolve(
        option: String?, environment: [String: String],
        configuration: () throws -> (path: String, configuration: CardctlConfiguration)?
    ) rethrows -> ReaderChoice {
        if let option { return ReaderChoice(selector: option, source: .option) }
        if let variable = environment[environmentVariable], !variable.isEmpty {
            return ReaderChoice(selector: variable, source: .environment)
        }
        if let (path, file) = try configuration(), let reader = file.reader {
            return ReaderChoice(selector: reader, source: .configurationFile(path: path))
        }
        return ReaderChoice(selector: builtInSelector, source: .builtInDefault)
    }

    var description: String {
        switch source {
        case .option: "\(selector) (--reader)"
        case .environment: "\(selector) (from \(Self.environmentVariable))"
        case .configurationFile(let path): "\(selector) (from \(path))"
        case .builtInDefault:
            "\(selector): the first USB CCID reader (nothing chosen with --reader, \(Self.environmentVariable) or cardctl.json)"
        }
    }
}
