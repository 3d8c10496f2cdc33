import CardFlow
import CardFlowCCID
import CardFlowSimulator
import Testing

/// `time-extensions=N` in `--reader sim:…` selectors: a reader that asks for more time before
/// every answer to a card exchange (what libccid and CardFlow meet with a slow card).
@Suite("Standing time extensions option")
struct TimeExtensionsOptionTests {
    @Test func parsedAndOffByDefault() throws {
        #expect(try SimulatorSpecification(parsing: "sim:iso7816").timeExtensionsPerExchange == 0)
        #expect(try SimulatorSpecification(parsing: "sim:iso7816,time-extensions=3").timeExtensionsPerExchange == 3)
    }

    @Test(arguments: [
        "sim,time-extensions", "sim,time-extensions=0", "sim,time-extensions=17", "sim,time-extensions=x",
    ])
    func badCountsAreRefused(selector: String) {
        #expect(throws: SimulatorSpecificationError.self) { try SimulatorSpecification(parsing: selector) }
    }

    @Test func unknownOptionListsIt() {
        #expect(SimulatorSpecificationError.unknownOption("x").description.contains("time-extensions"))
    }

    @Test("every APDU is answered after N time-extension frames, which the driver follows and counts")
    func everyExchangeIsExtended() async throws {
        let setup = try await SimulatorSetup(
            specification: try SimulatorSpecification(parsing: "sim:iso7816,seed=3,time-extensions=4"))
        #expect(setup.readers[0].configuration.timeExtensionsPerExchange == 4)
        let reader = try await setup.cardFlowReaders()[0]
        let driver = try #require(reader.driver as? CCIDReaderDriver)
        let (extensions, answers) = try await reader.withSession { session in
            // Counted inside the session: opening it identifies the card with an APDU of its own.
            let before = await driver.driver.counters.timeExtensions
            var answers: [ResponseAPDU] = []
            let select = try CommandAPDU(hex: "00A4040007A0000002471001")
            for _ in 0..<3 { answers.append(try await session.transmit(select)) }
            return (await driver.driver.counters.timeExtensions - before, answers)
        }
        #expect(answers.count == 3)
        // Three APDUs, each one XfrBlock at this reader's APDU level: 3 × 4 extensions.
        #expect(extensions == 12)
    }
}
