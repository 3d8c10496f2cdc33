import ArgumentParser

/// An NTAG / Ultralight page number on the command line: decimal, or hex with `0x`, 0…255 (as
/// blocks elsewhere in cardctl).
struct NTAGPageNumber: ExpressibleByArgument, Sendable, Hashable {
    let value: Int

    init(_ value: Int) {
        self.value = value
    }

    init?(argument: String) {
        let parsed =
            argument.lowercased().hasPrefix("0x") ? Int(argument.dropFirst(2), radix: 16) : Int(argument, radix: 10)
        guard let parsed, (0...255).contains(parsed) else { return nil }
        value = parsed
    }

    var defaultValueDescription: String { "\(value)" }
}
