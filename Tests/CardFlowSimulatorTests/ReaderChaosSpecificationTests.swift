import CardFlowSimulator
import Testing

/// `reader-chaos=SEED[,chaos-rate=P]` in `--reader sim:…` selectors.
@Suite("Reader chaos options")
struct ReaderChaosSpecificationTests {
    @Test func chaosWithDefaultRate() throws {
        let specification = try SimulatorSpecification(parsing: "sim:iso7816,reader-chaos=42")
        #expect(specification.readerChaos == ReaderChaos(seed: 42))
        #expect(specification.readerChaos?.rate == 0.05)
    }

    @Test func chaosWithRate() throws {
        let specification = try SimulatorSpecification(parsing: "sim,chaos-rate=0.5,reader-chaos=7")
        #expect(specification.readerChaos == ReaderChaos(seed: 7, rate: 0.5))
    }

    @Test func noChaosByDefault() throws {
        #expect(try SimulatorSpecification(parsing: "sim:iso7816").readerChaos == nil)
    }

    @Test(arguments: [
        "sim,reader-chaos", "sim,reader-chaos=-1", "sim,reader-chaos=x", "sim,reader-chaos=1,chaos-rate=2",
        "sim,reader-chaos=1,chaos-rate=nan", "sim,chaos-rate=0.1",
    ])
    func badChaosOptionsAreRefused(selector: String) {
        #expect(throws: SimulatorSpecificationError.self) { try SimulatorSpecification(parsing: selector) }
    }

    @Test func unknownOptionListsTheChaosOptions() {
        let error = SimulatorSpecificationError.unknownOption("chaos")
        #expect(error.description.contains("reader-chaos"))
        #expect(error.description.contains("chaos-rate"))
    }

    @Test func setupPutsTheChaosOnTheReader() async throws {
        let setup = try await SimulatorSetup(
            specification: try SimulatorSpecification(parsing: "sim:iso7816,reader-chaos=9,chaos-rate=0.25"))
        #expect(setup.readers[0].configuration.chaos == ReaderChaos(seed: 9, rate: 0.25))
    }
}
