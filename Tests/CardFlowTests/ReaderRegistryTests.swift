import CardFlow
import CardFlowSimulator
import Testing

@Suite("Reader registry")
struct ReaderRegistryTests {
    @Test func eventsStartWithPresentReadersAndFollowChanges() async throws {
        let first = await simulatedReader().0
        let registry = ManagedReaderRegistry(readers: [first])
        var events = await registry.events().makeAsyncIterator()
        guard case .added(let initial)? = await events.next() else { Issue.record("no initial reader"); return }
        #expect(initial === first)

        let virtual = VirtualCCIDReader()
        let second = Reader.simulated(virtual, id: "sim:1")
        await registry.add(second)
        guard case .added(let added)? = await events.next() else { Issue.record("no added event"); return }
        #expect(added.info.id == "sim:1")
        await registry.remove(id: "sim:1")
        guard case .removed(let info)? = await events.next() else { Issue.record("no removed event"); return }
        #expect(info.id == "sim:1")
        #expect(await registry.readers().count == 1)
    }

    @Test func waitForReaderWaitsForAnArrival() async throws {
        let registry = ManagedReaderRegistry()
        let waiting = Task { try await registry.waitForReader().info.id }
        try await Task.sleep(for: .milliseconds(20))
        await registry.add(Reader.simulated(VirtualCCIDReader(), id: "sim:7"))
        #expect(try await waiting.value == "sim:7")
    }
}
