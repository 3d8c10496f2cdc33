import ArgumentParser
import CardFlowFleet
import CardFlowFleetPostgres
import Foundation
import Logging

/// `cardctl fleet`: the fleet's PostgreSQL store directly (no daemon needed): batches, records,
/// claims, spoiled cards and hosts.
struct FleetCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fleet",
        abstract: "Manage the personalisation batches many cardd hosts share in PostgreSQL.",
        discussion: """
            The store: --postgres, else $CARDFLOW_FLEET_POSTGRES. A postgresql:// URL \
            (postgresql:///cardflow?host=/run/postgresql&user=cardd) or a socket folder; \
            a password comes from the URL or $PGPASSWORD.
            """,
        subcommands: [
            FleetInitCommand.self, FleetImportCommand.self, FleetStatusCommand.self, FleetRecordsCommand.self,
            FleetRetryCommand.self, FleetVoidCommand.self, FleetSpoiledCommand.self, FleetHostsCommand.self,
        ])
}

/// Options every `fleet` subcommand shares.
struct FleetStoreOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("The fleet's PostgreSQL (URL or socket folder).", valueName: "URL"))
    var postgres: String?

    @Option(name: .long, help: "Seconds one database operation may take.")
    var databaseTimeout = 10

    /// Runs `body` with a store whose connection pool runs beside it.
    func withStore<Value: Sendable>(
        _ body: @escaping @Sendable (FleetStore) async throws -> Value
    ) async throws -> Value {
        guard let text = postgres ?? ProcessInfo.processInfo.environment["CARDFLOW_FLEET_POSTGRES"] else {
            throw ValidationError("no fleet store: give --postgres URL or set CARDFLOW_FLEET_POSTGRES")
        }
        guard (1...600).contains(databaseTimeout) else { throw ValidationError("--database-timeout: 1 to 600 seconds") }
        let store = FleetStore(
            address: try FleetDatabaseAddress(text), operationTimeout: .seconds(databaseTimeout),
            logger: Logger(label: "cardctl.fleet"))
        return try await withThrowingTaskGroup(of: Value?.self) { group in
            group.addTask {
                await store.run()
                return nil
            }
            defer { group.cancelAll() }
            return try await body(store)
        }
    }
}

/// JSON for `--json` output: dates as ISO 8601, keys sorted.
enum FleetJSON {
    static func text(_ value: some Encodable) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        encoder.dateEncodingStrategy = .iso8601
        return (try? encoder.encode(value)).map { String(decoding: $0, as: UTF8.self) } ?? "null"
    }
}

struct FleetInitCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "init", abstract: "Create the fleet's tables (cardd also does this when it starts).")
    @OptionGroup var store: FleetStoreOptions

    func run() async throws {
        try await store.withStore { try await $0.migrate() }
        Output.standardOutput("fleet schema ready")
    }
}

struct FleetImportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import", abstract: "Add the records of FILE (JSON lines, or CSV by extension) to BATCH.",
        discussion: """
            JSON lines: {"ref": "EMP-0001", "flow": {"text": "Alice Example"}} per line. CSV: a header \
            with a ref column and one column per parameter (name:int, name:bool for non-strings). \
            References the batch already has are skipped, so importing a file twice is harmless. \
            Parameters that look like key material are refused: records name key-store slots.
            """)
    @OptionGroup var store: FleetStoreOptions
    @OptionGroup(title: "Global Options") var global: GlobalOptions
    @Argument(help: "The batch (created when new).") var batch: String
    @Argument(help: "The records file; - for standard input.") var file: String
    @Option(name: .long, help: "Input format: jsonl or csv (default: by the file's extension).")
    var format: String?
    @Option(name: .long, help: "Claims per record before it fails for good (new batches only).")
    var maxAttempts = 3

    func run() async throws {
        let data: Data
        if file == "-" {
            data = FileHandle.standardInput.readDataToEndOfFile()
        } else {
            do { data = try Data(contentsOf: URL(fileURLWithPath: file)) } catch {
                throw InputError(description: "cannot read \(file): \(error.localizedDescription)")
            }
        }
        let chosen: FleetRecordFile.Format
        if let format {
            guard let parsed = FleetRecordFile.Format(rawValue: format) else {
                throw ValidationError("--format: jsonl or csv")
            }
            chosen = parsed
        } else {
            chosen = FleetRecordFile.Format(path: file)
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw InputError(description: "\(file) is not UTF-8")
        }
        let records = try FleetRecordFile.parse(text, format: chosen)
        let (batch, maxAttempts) = (self.batch, self.maxAttempts)
        let summary = try await store.withStore {
            try await $0.importRecords(batch: batch, records, maxAttempts: maxAttempts)
        }
        if global.json {
            Output.standardOutput(FleetJSON.text(summary))
        } else {
            Output.standardOutput("\(summary.batch): \(summary.imported) imported, \(summary.skipped) already there")
        }
    }
}

struct FleetStatusCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status", abstract: "Records per state, per batch and per host, with each host's recent rate.")
    @OptionGroup var store: FleetStoreOptions
    @OptionGroup(title: "Global Options") var global: GlobalOptions
    @Argument(help: "One batch (default: all).") var batch: String?
    @Option(name: .long, help: "Seconds of recent completions each host's records/min covers.")
    var rateWindow = 60

    func validate() throws {
        if !(1...86_400).contains(rateWindow) { throw ValidationError("--rate-window must be 1 to 86400 seconds") }
    }

    func run() async throws {
        let (batch, window) = (self.batch, Duration.seconds(rateWindow))
        let statuses = try await store.withStore { try await $0.status(batch: batch, rateWindow: window) }
        if global.json {
            Output.standardOutput(FleetJSON.text(statuses))
            return
        }
        if statuses.isEmpty { Output.standardOutput("no batches") }
        for status in statuses {
            Output.standardOutput(
                "\(status.batch): \(status.total) records — \(status.pending) pending, \(status.claimed) claimed, "
                    + "\(status.expired) expired, \(status.done) done, \(status.failed) failed, \(status.void) void; "
                    + "\(status.spoiled) spoiled cards")
            for host in status.hosts {
                Output.standardOutput(
                    "  \(host.host): \(host.done) done, \(host.claimed) claimed, \(host.failed) failed; "
                        + "\(String(format: "%.1f", host.recordsPerMinute)) records/min over the last \(rateWindow) s")
            }
        }
    }
}

struct FleetRecordsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "records", abstract: "The records of a batch.")
    @OptionGroup var store: FleetStoreOptions
    @OptionGroup(title: "Global Options") var global: GlobalOptions
    @Argument var batch: String
    @Option(name: .long, help: "Only records in this state: pending, claimed, done, failed, void.")
    var state: String?
    @Option(name: .long, help: "At most this many records.") var limit = 1_000

    func run() async throws {
        var filter: FleetRecordState?
        if let state {
            guard let parsed = FleetRecordState(rawValue: state) else {
                throw ValidationError("--state: pending, claimed, done, failed or void")
            }
            filter = parsed
        }
        let (batch, limit, chosen) = (self.batch, self.limit, filter)
        let records = try await store.withStore { try await $0.records(batch: batch, state: chosen, limit: limit) }
        if global.json {
            Output.standardOutput(FleetJSON.text(records))
            return
        }
        for record in records {
            var line = "\(record.id) \(record.reference) \(record.state.rawValue) attempts=\(record.attempts)"
            if let host = record.host { line += " host=\(host)" }
            if let uid = record.uid { line += " uid=\(uid)" }
            if let error = record.error { line += " error=\(error)" }
            Output.standardOutput(line)
        }
    }
}

/// Record ids on the command line (all records of the state when none).
struct FleetRecordSelection: ParsableArguments {
    @Argument var batch: String
    @Argument(help: "Record ids (default: every record the command applies to).") var ids: [Int64] = []

    /// Runs `change` on the selected records and prints how many it `verb`.
    func apply(
        _ store: FleetStoreOptions, verb: String,
        _ change: @escaping @Sendable (FleetStore, String, [Int64]) async throws -> Int
    ) async throws {
        let (batch, ids) = (self.batch, self.ids)
        let count = try await store.withStore { try await change($0, batch, ids) }
        Output.standardOutput("\(count) records \(verb)")
    }
}

struct FleetRetryCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "retry",
        abstract: "Put failed records back to pending (their cards go on the spoilage list).")
    @OptionGroup var store: FleetStoreOptions
    @OptionGroup var selection: FleetRecordSelection

    func run() async throws {
        try await selection.apply(store, verb: "pending again") { try await $0.retry(batch: $1, ids: $2) }
    }
}

struct FleetVoidCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "void", abstract: "Take pending or failed records out of the batch.")
    @OptionGroup var store: FleetStoreOptions
    @OptionGroup var selection: FleetRecordSelection

    func run() async throws {
        try await selection.apply(store, verb: "voided") { try await $0.void(batch: $1, ids: $2) }
    }
}

struct FleetSpoiledCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "spoiled", abstract: "Cards a host bound and may have half-written before it lost its claim.")
    @OptionGroup var store: FleetStoreOptions
    @OptionGroup(title: "Global Options") var global: GlobalOptions
    @Argument var batch: String?

    func run() async throws {
        let batch = self.batch
        let cards = try await store.withStore { try await $0.spoiledCards(batch: batch) }
        if global.json {
            Output.standardOutput(FleetJSON.text(cards))
            return
        }
        if cards.isEmpty { Output.standardOutput("no spoiled cards") }
        for card in cards {
            Output.standardOutput(
                "\(card.uid) record=\(card.recordID.map(String.init) ?? "-") host=\(card.host ?? "-") \(card.reason)")
        }
    }
}

struct FleetHostsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hosts", abstract: "The cardd hosts of the fleet, most recently seen first.")
    @OptionGroup var store: FleetStoreOptions
    @OptionGroup(title: "Global Options") var global: GlobalOptions

    func run() async throws {
        let hosts = try await store.withStore { try await $0.hosts() }
        if global.json {
            Output.standardOutput(FleetJSON.text(hosts))
            return
        }
        let now = Date()
        for host in hosts {
            let seen = host.lastSeen.map { "\(Int(now.timeIntervalSince($0)))s ago" } ?? "never"
            Output.standardOutput(
                "\(host.name) v\(host.version) seen \(seen): readers \(host.readers.count), running \(host.runningJobs), "
                    + "claims \(host.claims), completions \(host.completions), fenced \(host.fencedWrites), "
                    + "lease losses \(host.leaseLosses), outbox \(host.outboxDepth)")
        }
    }
}
