import CardFlowFleet
import Synchronization
import Testing

@testable import CardFlowFleetPostgres

/// The choice of server for a multi-server address, with scripted probe answers and a manual
/// time (no server, no sleeping).
@Suite struct FleetPrimarySelectorTests {
    /// What the servers answer, and how often they were asked.
    actor Servers {
        var roles: [FleetPrimarySelector.Role]
        private(set) var asked = 0

        init(_ roles: [FleetPrimarySelector.Role]) { self.roles = roles }

        func answer(_ index: Int) -> FleetPrimarySelector.Role {
            asked += 1
            return roles[index]
        }

        func set(_ roles: [FleetPrimarySelector.Role]) { self.roles = roles }
    }

    /// A time the test moves by hand; read synchronously by the selector.
    final class ManualTime: Sendable {
        private let instant = Mutex(ContinuousClock.now)
        var now: ContinuousClock.Instant { instant.withLock { $0 } }
        func advance(_ duration: Duration) { instant.withLock { $0 += duration } }
    }

    static func selector(_ servers: Servers, time: ManualTime = ManualTime()) -> FleetPrimarySelector {
        FleetPrimarySelector(count: 2, retryInterval: .milliseconds(250), now: { time.now }) { index in
            await servers.answer(index)
        }
    }

    @Test func oneServerIsNeverAsked() async throws {
        let servers = Servers([.standby])
        let selector = FleetPrimarySelector(count: 1) { await servers.answer($0) }
        #expect(try await selector.serverForOperation("claim") == 0)
        await selector.operationFailed(on: 0, with: .unreachable(operation: "claim", reason: "refused"))
        #expect(try await selector.serverForOperation("claim") == 0)
        #expect(await servers.asked == 0)
    }

    @Test func theFirstOperationAsksEveryServerAndTakesThePrimary() async throws {
        let servers = Servers([.standby, .primary])
        let selector = Self.selector(servers)
        #expect(try await selector.serverForOperation("migrate") == 1)
        #expect(try await selector.serverForOperation("claim") == 1)
        #expect(await servers.asked == 2)
    }

    @Test func aFailoverFailureOnTheChosenServerAsksAgain() async throws {
        let servers = Servers([.primary, .standby])
        let selector = Self.selector(servers)
        #expect(try await selector.serverForOperation("claim") == 0)
        await servers.set([.unreachable("refused"), .primary])
        // A refusal of the statement itself is no reason to look elsewhere.
        await selector.operationFailed(
            on: 0, with: .server(operation: "claim", sqlState: "23505", message: "duplicate key"))
        #expect(try await selector.serverForOperation("claim") == 0)
        // Nor is a failure on a server that is no longer the chosen one.
        await selector.operationFailed(on: 1, with: .timedOut(operation: "claim", seconds: 3))
        #expect(try await selector.serverForOperation("claim") == 0)
        #expect(await servers.asked == 2)
        await selector.operationFailed(on: 0, with: .timedOut(operation: "claim", seconds: 3))
        #expect(try await selector.serverForOperation("claim") == 1)
        #expect(await servers.asked == 4)
    }

    @Test(arguments: ["25006", "57P01", "57P02", "57P03", "08006"])
    func aReadOnlyOrShuttingDownServerIsLeft(sqlState: String) async throws {
        let servers = Servers([.primary, .standby])
        let selector = Self.selector(servers)
        #expect(try await selector.serverForOperation("claim") == 0)
        await servers.set([.standby, .primary])
        await selector.operationFailed(on: 0, with: .server(operation: "complete", sqlState: sqlState, message: "x"))
        #expect(try await selector.serverForOperation("complete") == 1)
    }

    @Test func withNoPrimaryOperationsFailAtOnceAndTheServersAreAskedAtMostOncePerInterval() async throws {
        let servers = Servers([.unreachable("connection refused"), .standby])
        let time = ManualTime()
        let selector = Self.selector(servers, time: time)
        for _ in 0..<3 {
            await #expect {
                try await selector.serverForOperation("claim")
            } throws: { error in
                guard case .unreachable(let operation, let reason) = error as? FleetStoreError else { return false }
                return operation == "claim" && reason.contains("none of the 2 servers")
                    && reason.contains("server 1: connection refused") && reason.contains("server 2: standby")
            }
        }
        #expect(await servers.asked == 2)
        time.advance(.milliseconds(300))
        await servers.set([.unreachable("connection refused"), .primary])
        #expect(try await selector.serverForOperation("claim") == 1)
        #expect(await servers.asked == 4)
    }

    @Test func concurrentOperationsShareOneRoundOfQuestions() async throws {
        let servers = Servers([.standby, .primary])
        let selector = Self.selector(servers)
        let chosen = await withTaskGroup(of: Int?.self) { group in
            for _ in 0..<20 { group.addTask { try? await selector.serverForOperation("claim") } }
            var chosen: [Int?] = []
            for await index in group { chosen.append(index) }
            return chosen
        }
        #expect(chosen == Array(repeating: 1, count: 20))
        #expect(await servers.asked == 2)
    }
}
