import ArgumentParser
import CardFlow
import CardFlowStorageCards

/// `cardctl classic value --block N [--set V | --add V | --subtract V | --copy-to B]`: value
/// blocks (an e-purse or access counter). ACS readers do it with their value commands, others by
/// a checked read-modify-write.
struct ClassicValueCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "value",
        abstract: "Read a value block, or set, add to, subtract from or copy it; prints the value after.")
    @OptionGroup(title: "Global Options") var global: GlobalOptions
    @OptionGroup var keys: ClassicKeyOptions
    @Option(help: "The value block.") var block: Int
    @Option(help: "Format the block as a value block holding V.") var set: Int32?
    @Option(help: "Increment by V (then transfer to the same block).") var add: Int32?
    @Option(help: "Decrement by V (then transfer to the same block).") var subtract: Int32?
    @Option(name: .customLong("copy-to"), help: "Restore the value into block B of the same sector.") var copyTo: Int?

    func validate() throws {
        guard [set.map { _ in 1 }, add.map { _ in 1 }, subtract.map { _ in 1 }, copyTo].compactMap({ $0 }).count <= 1
        else { throw ValidationError("give at most one of --set, --add, --subtract, --copy-to") }
        for (name, amount) in [("--add", add), ("--subtract", subtract)] {
            if let amount, amount < 0 { throw ValidationError("\(name) takes a positive amount, not \(amount)") }
        }
    }

    func run() async throws {
        let (target, value) = try await withClassic(global, keys) { card, _ in
            try ClassicInfo.checkPlainWritable(block, layout: card.layout)
            try await keys.authenticate(card, block: block)
            if let set {
                try await card.writeValue(set, block: block)
            } else if let add {
                try await card.increment(block: block, by: add)
            } else if let subtract {
                try await card.decrement(block: block, by: subtract)
            } else if let copyTo {
                try ClassicInfo.checkPlainWritable(copyTo, layout: card.layout)
                try await card.restore(from: block, to: copyTo)
                return (copyTo, try await card.readValue(block: copyTo))
            }
            return (block, try await card.readValue(block: block))
        }
        if global.json {
            try Output.json(ClassicOutput.Value(block: target, value: value))
        } else {
            Output.standardOutput("block \(target): value \(value)")
        }
    }
}
