import CardFlow
import CardFlowDaemon
import CardFlowDaemonFlows
import CardFlowDaemonTestSupport
import CardFlowSimulator
import Testing

/// A backend the daemon has never heard of, written here in the test: its readers arrive and
/// leave when the test says, as hotplug readers do. The daemon takes it like usb, pcsc, vpcd
/// and sim, with no change of its own: that is what makes a backend a plug.
struct PluggedReaderSource: ReaderSource {
    struct BadSelector: Error {}

    let registry: ManagedReaderRegistry
    let closed: ClosedFlag

    var scheme: String { "plugged" }
    var forms: [String] { ["plugged"] }

    func check(_ selector: String) throws {
        guard selector == "plugged" else { throw BadSelector() }
    }

    func open(_ selector: String, options: ReaderSourceOptions) async throws -> OpenedReaders {
        #expect(options.watch, "the daemon asks sources to watch")
        return OpenedReaders(readers: [], arrivals: registry, close: { await closed.set() })
    }
}

actor ClosedFlag {
    private(set) var isSet = false
    func set() { isSet = true }
}

@Suite("cardd with a reader source it does not know")
struct ReaderSourcePlugTests {
    @Test func readersOfAPluggedSourceAreSupervisedAsTheyComeAndGo() async throws {
        let registry = ManagedReaderRegistry()
        let closed = ClosedFlag()
        let source = PluggedReaderSource(registry: registry, closed: closed)
        try await DaemonHarness.run(
            configuration: DaemonConfiguration(readers: ["plugged"], rules: [CardRule(name: "report", flow: .report)]),
            readerSources: [source]
        ) { harness in
            #expect(await harness.daemon.fleet.readers().isEmpty)
            let virtual = VirtualCCIDReader()
            await virtual.insert(ISO7816Card(seed: 3))
            await registry.add(Reader.simulated(virtual, id: "plugged:0"))
            let record = try await harness.waitForJob { $0.reader == "plugged:0" && $0.state != .running }
            #expect(record.state == .succeeded, "\(record.error ?? "")")
            await registry.remove(id: "plugged:0")
            let end = ContinuousClock.now + .seconds(30)
            while await !harness.daemon.fleet.readers().isEmpty, ContinuousClock.now < end {
                try await Task.sleep(for: .milliseconds(20))
            }
            #expect(await harness.daemon.fleet.readers().isEmpty, "a reader that left is no longer supervised")
        }
        #expect(await closed.isSet, "the daemon closes what the source opened when it stops")
    }

    @Test func aSelectorNoSourceServesStopsTheDaemonWithTheForms() async throws {
        let source = PluggedReaderSource(registry: ManagedReaderRegistry(), closed: ClosedFlag())
        await #expect(throws: ReaderSelectorError.self) {
            try await DaemonHarness.run(
                configuration: DaemonConfiguration(readers: ["usb"]), readerSources: [source]
            ) { _ in }
        }
    }
}
