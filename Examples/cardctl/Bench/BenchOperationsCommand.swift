import ArgumentParser
import CardBench
import CardFlow

/// `cardctl bench ops`: per-operation timings of a card family's operations.
struct BenchOperationsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "ops", abstract: "pending")
    @OptionGroup(title: "Global Options") var global: GlobalOptions
    @OptionGroup(title: "Bench Options") var bench: BenchOptions
    func run() async throws {}
}
