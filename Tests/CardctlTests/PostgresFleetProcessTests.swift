import CardFlowPostgresTestSupport
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// cardd hosts as separate processes on one PostgreSQL batch, driven and checked through
/// `cardctl fleet` as an operator would.
@Suite(
    "PostgresFleet processes", .serialized,
    .enabled(
        if: ThrowawayPostgres.enabled,
        "PostgreSQL is not installed (Scripts/setup.sh installs it); CI runs these tests"))
struct PostgresFleetProcessTests {
    /// One record as `cardctl fleet records --json` shows it (the fields these tests read).
    struct Record: Sendable, Equatable {
        var id: Int
        var state: String
        var host: String?
        var uid: String?
        var attempts: Int

        init(_ object: [String: Any]) {
            id = object["id"] as? Int ?? -1
            state = object["state"] as? String ?? "?"
            host = object["host"] as? String
            uid = object["uid"] as? String
            attempts = object["attempts"] as? Int ?? -1
        }
    }

    struct Fleet {
        let server: ThrowawayPostgres
        let folder: URL
        /// What hosts and cardctl are given: the server's URL, or several servers'.
        var url: String

        init(server: ThrowawayPostgres, folder: URL, url: String? = nil) {
            self.server = server
            self.folder = folder
            self.url = url ?? server.url
        }

        func cardctl(_ arguments: [String]) async throws -> CardctlResult {
            let result = try await CardctlProcess.run(["fleet"] + arguments + ["--postgres", url])
            guard result.status == 0 else { throw CardctlHarnessError(description: "\(result)") }
            return result
        }

        func records() async throws -> [Record] {
            try Fixtures.jsonObjects(try await cardctl(["records", "b", "--json"]).stdout).map(Record.init)
        }

        /// (uid, host) of the spoiled cards.
        func spoiled() async throws -> [(uid: String, host: String)] {
            try Fixtures.jsonObjects(try await cardctl(["spoiled", "b", "--json"]).stdout).map {
                ($0["uid"] as? String ?? "?", $0["host"] as? String ?? "?")
            }
        }

        /// (completions, fenced writes) per host.
        func hostCounters() async throws -> [(completions: Int, fenced: Int)] {
            try Fixtures.jsonObjects(try await cardctl(["hosts", "--json"]).stdout).map {
                ($0["completions"] as? Int ?? -1, $0["fencedWrites"] as? Int ?? -1)
            }
        }

        func importRecords(_ count: Int) async throws {
            let lines = (1...count).map { #"{"ref": "R\#($0)", "flow": {"text": "card \#($0)"}}"# }
            let file = folder.appendingPathComponent("batch.jsonl")
            try Data(lines.joined(separator: "\n").utf8).write(to: file)
            let result = try await cardctl(["import", "b", file.path])
            #expect(result.stdout.contains("\(count) imported"), "\(result)")
        }

        /// Starts a cardd host with two simulated readers of NDEF Type 4 tags that leave once handled.
        func host(
            _ name: String, seedBase: Int, lease: Int, latency: Int = 0, databaseTimeout: Int = 10
        ) throws -> CardctlProcess {
            let home = folder.appendingPathComponent(name).path
            try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
            let configuration = """
                {"fleet": {"postgres": "\(url)", "batch": "b", "leaseSeconds": \(lease),
                           "hostName": "\(name)", "pollSeconds": 1, "databaseTimeoutSeconds": \(databaseTimeout)},
                 "rules": [{"name": "badges", "flow": {"kind": "fleet", "flow": {"kind": "ndef-write"}}}]}
                """
            try Data(configuration.utf8).write(to: URL(fileURLWithPath: home + "/cardd.json"))
            return try CardctlProcess(
                [
                    "--config", home + "/cardd.json", "--socket", home + "/cardd.sock", "--job-log",
                    home + "/jobs.sqlite", "--simulate", "--readers", "2", "--kinds", "ndef4", "--pace", "handled",
                    "--card-seed-base", "\(seedBase)", "--latency", "\(latency)", "--quiet", "--log-level", "warning",
                ], executable: "cardd")
        }

        /// Polls the records until `condition` holds (bounded; each poll is a cardctl process). A
        /// poll that fails (the database is down for a while) counts as not yet.
        func waitFor(
            _ what: String, within bound: Duration = .seconds(120), _ condition: ([Record]) -> Bool
        ) async throws -> [Record] {
            let deadline = ContinuousClock.now + bound
            var last: [Record] = []
            var lastError: (any Error)?
            while ContinuousClock.now < deadline {
                do {
                    last = try await records()
                    lastError = nil
                    if condition(last) { return last }
                } catch {
                    lastError = error
                }
                try await Task.sleep(for: .milliseconds(300))
            }
            throw CardctlHarnessError(
                description:
                    "\(what): not within \(bound); records: \(last); last error: \(String(describing: lastError))")
        }
    }

    static func withFleet(_ body: (Fleet) async throws -> Void) async throws {
        let server = try await ThrowawayPostgres.start()
        let folder = try Fixtures.temporaryDirectory()
        defer { Fixtures.removeDirectory(folder) }
        do {
            let fleet = Fleet(server: server, folder: folder)
            _ = try await fleet.cardctl(["init"])
            try await body(fleet)
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }

    static func done(_ records: [Record]) -> [Record] {
        records.filter { $0.state == "done" }
    }

    @Test func threeHostsFinishEveryRecordExactlyOnce() async throws {
        try await Self.withFleet { fleet in
            try await fleet.importRecords(24)
            let hosts = try (1...3).map { try fleet.host("h\($0)", seedBase: $0 * 1_000_000, lease: 10) }
            defer { for host in hosts { host.send(signal: SIGKILL) } }
            let records = try await fleet.waitFor("24 records done") { Self.done($0).count == 24 }
            // One card per record, no record twice, and every card's UID bound.
            let uids = Set(records.compactMap(\.uid))
            #expect(uids.count == 24)
            #expect(records.allSatisfy { $0.attempts == 1 })
            let byHost = Dictionary(grouping: records, by: { $0.host ?? "-" }).mapValues(\.count)
            #expect(byHost.values.reduce(0, +) == 24)
            #expect(Set(byHost.keys).isSubset(of: ["h1", "h2", "h3"]))
            let status = try await fleet.cardctl(["status", "b"]).stdout
            #expect(status.contains("24 done"), "\(status)")
            // Each host's line ends with its rate over the last minute (records/min).
            #expect(status.contains("records/min over the last 60 s"), "\(status)")
            for host in hosts {
                host.send(signal: SIGTERM)
                let result = try await host.waitForExit(timeout: .seconds(30))
                #expect(result.status == 0, "\(result)")
            }
            let counters = try await fleet.hostCounters()
            #expect(counters.map(\.completions).reduce(0, +) == 24)
            #expect(counters.map(\.fenced).reduce(0, +) == 0)
        }
    }

    @Test func aKilledHostsRecordIsFinishedElsewhereAndItsCardSpoiled() async throws {
        try await Self.withFleet { fleet in
            try await fleet.importRecords(6)
            // Slow cards: a flow takes seconds, so the kill lands mid-flow.
            let victim = try fleet.host("victim", seedBase: 1_000_000, lease: 3, latency: 300)
            defer { victim.send(signal: SIGKILL) }
            _ = try await fleet.waitFor("the victim claims a record", within: .seconds(60)) { records in
                records.contains { $0.state == "claimed" && $0.host == "victim" }
            }
            victim.send(signal: SIGKILL)
            _ = try await victim.waitForExit(timeout: .seconds(10))
            let orphaned = try await fleet.records().filter { $0.state == "claimed" && $0.host == "victim" }
            #expect(!orphaned.isEmpty)
            let survivor = try fleet.host("survivor", seedBase: 2_000_000, lease: 30)
            defer { survivor.send(signal: SIGKILL) }
            let records = try await fleet.waitFor("6 records done") { Self.done($0).count == 6 }
            for record in orphaned {
                let now = try #require(records.first { $0.id == record.id })
                #expect(now.host == "survivor")
                #expect(now.attempts == 2)
                #expect(now.uid != record.uid)
            }
            #expect(Set(records.compactMap(\.uid)).count == 6)
            let spoiled = try await fleet.spoiled()
            #expect(Set(orphaned.compactMap(\.uid)).isSubset(of: Set(spoiled.map(\.uid))))
            #expect(spoiled.allSatisfy { $0.host == "victim" })
            survivor.send(signal: SIGTERM)
            let result = try await survivor.waitForExit(timeout: .seconds(30))
            #expect(result.status == 0, "\(result)")
        }
    }

    /// A primary failover while hosts run: the hosts and cardctl are given both servers, the
    /// primary crashes mid-batch and its synchronous standby is promoted; every record is done
    /// once, on the promoted server, by one card each, and no completion is lost or fenced.
    @Test func hostsGivenBothServersFollowAPromotedStandby() async throws {
        let primary = try await ThrowawayPostgres.start()
        var servers = [primary]
        let folder = try Fixtures.temporaryDirectory()
        defer { Fixtures.removeDirectory(folder) }
        do {
            let standby = try await primary.startStandby()
            servers.append(standby)
            let fleet = Fleet(server: primary, folder: folder, url: ThrowawayPostgres.url(of: [primary, standby]))
            _ = try await fleet.cardctl(["init"])
            try await fleet.importRecords(30)
            // Slow cards (a flow takes a good part of a second), so flows are under way when the
            // primary goes; a lease far longer than the failover, so no claim runs out meanwhile.
            let hosts = try (1...2).map {
                try fleet.host("h\($0)", seedBase: $0 * 1_000_000, lease: 60, latency: 40, databaseTimeout: 3)
            }
            defer { for host in hosts { host.send(signal: SIGKILL) } }
            let beforeCrash = try await fleet.waitFor("8 records done on the primary") { Self.done($0).count >= 8 }
            try await primary.crash()
            // Work was left for the promoted server (else this tests nothing).
            try #require(Self.done(beforeCrash).count < 30, "\(beforeCrash)")
            try await standby.promote()
            #expect(
                try await standby.psql("SELECT pg_is_in_recovery()").trimmingCharacters(in: .whitespacesAndNewlines)
                    == "f")
            let records = try await fleet.waitFor("30 records done on the promoted standby", within: .seconds(180)) {
                Self.done($0).count == 30
            }
            #expect(Set(records.compactMap(\.uid)).count == 30)
            for host in hosts {
                host.send(signal: SIGTERM)
                let result = try await host.waitForExit(timeout: .seconds(30))
                #expect(result.status == 0, "\(result)")
            }
            // Every completion reached the promoted server once, none was fenced (so no written
            // card's record went to another card); a card is on the spoilage list only for a
            // record claimed again (a claim whose answer the crash swallowed: its card was never
            // written), which the crash's timing makes rare.
            let counters = try await fleet.hostCounters()
            #expect(counters.map(\.completions).reduce(0, +) == 30, "\(counters)")
            #expect(counters.map(\.fenced).reduce(0, +) == 0, "\(counters)")
            let spoiled = try await fleet.spoiled()
            #expect(spoiled.count == records.filter { $0.attempts > 1 }.count, "\(spoiled) \(records)")
            #expect(Set(spoiled.map(\.uid)).isDisjoint(with: Set(records.compactMap(\.uid))))
        } catch {
            for server in servers { await server.stop() }
            throw error
        }
        for server in servers { await server.stop() }
    }
}
