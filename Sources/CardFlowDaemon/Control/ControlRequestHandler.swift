import CardFlow
import CardFlowDaemonControl
import Foundation

/// Answers control requests, one JSON object per line:
///
/// | op | fields | answer |
/// |---|---|---|
/// | `ping` | | `"pong"` |
/// | `readers` | | `[{"id","name","vendorID","productID","exchangeLevel"}]` |
/// | `events` | | `"subscribed"`, then `{"id","event":{…}}` lines until the client goes |
/// | `apdu` | `reader`, `apdus` (hex strings), `expect`?, `follow`? | `{"job": N}` |
/// | `flow` | `reader`, `flow` (as in the configuration), `follow`? | `{"job": N}` |
/// | `watch` | `job` | the job's events as `{"id","event":{…}}`, then the job record |
/// | `cancel` | `job` | `{"cancelled": true}` |
/// | `jobs` | `limit`? | job records, newest first |
/// | `job` | `job` | one job record with its `events` |
/// | `metrics` | | Prometheus text exposition as a string |
///
/// With `follow: true`, a submission first answers `{"id","accepted":{"job":N}}`, then streams the
/// job's events and ends with its record (the `ok` answer), as `watch` does.
struct ControlRequestHandler: Sendable {
    let fleet: ReaderFleet
    let jobs: JobCenter
    let bus: EventBus
    let log: JobLog?
    let metrics: DaemonMetrics
    /// The kinds a request's `flow` may name.
    let flowKinds: DaemonFlowKinds
    /// Deepest array/object nesting accepted in a request.
    var maximumJSONNesting = DaemonLimits().maximumJSONNesting

    /// Handles one line; `send` writes one answer line (it may be called many times for streams).
    func handle(_ line: ControlLine, send: @escaping @Sendable (JSONValue) async -> Void) async {
        let request: JSONValue
        switch line {
        case .tooLong(let limit):
            await send(
                Self.failure(id: .null, ControlError("lineTooLong", "request longer than \(limit) bytes; dropped")))
            metrics.controlRequest(.tooLong, ok: false)
            return
        case .line(let text):
            if text.allSatisfy(\.isWhitespace) { return }
            // Linear, before the recursive decoder: a line of 100,000 '[' must not reach it.
            guard JSONNestingCheck.depth(of: text.utf8, limit: maximumJSONNesting) <= maximumJSONNesting else {
                await send(
                    Self.failure(
                        id: .null,
                        ControlError(
                            "tooDeep", "arrays and objects nest deeper than \(maximumJSONNesting) levels; dropped")))
                metrics.controlRequest(.tooDeep, ok: false)
                return
            }
            guard let parsed = try? JSONDecoder().decode(JSONValue.self, from: Data(text.utf8)), case .object = parsed
            else {
                await send(Self.failure(id: .null, ControlError("badJSON", "each line must be one JSON object")))
                metrics.controlRequest(.badJSON, ok: false)
                return
            }
            request = parsed
        }
        let id = request["id"] ?? .null
        let operation = request["op"]?.stringValue ?? ""
        // The metric label comes from the fixed list, never from the client's text.
        let label = ControlOperationLabel(operation)
        do {
            try await perform(operation, request: request, id: id, send: send)
            metrics.controlRequest(label, ok: true)
        } catch let error as ControlError {
            metrics.controlRequest(label, ok: false)
            await send(Self.failure(id: id, error))
        } catch is CancellationError {
            return
        } catch let error as JobLogError {
            // A tampered or foreign row: reported, and the daemon goes on.
            metrics.controlRequest(label, ok: false)
            await send(Self.failure(id: id, ControlError("jobLogCorrupt", error.description)))
        } catch {
            metrics.controlRequest(label, ok: false)
            await send(Self.failure(id: id, ControlError("internal", String(describing: error))))
        }
    }

    private func perform(
        _ operation: String, request: JSONValue, id: JSONValue,
        send: @escaping @Sendable (JSONValue) async -> Void
    ) async throws {
        switch operation {
        case "ping":
            await send(Self.success(id: id, "pong"))
        case "readers":
            let readers = await fleet.readers().map { info -> JSONValue in
                // The backend's own facts (a CCID reader's exchange level…) first, so that the
                // neutral fields always win a clash.
                var fields = info.details.mapValues { JSONValue.string($0) }
                fields["id"] = .string(info.id)
                fields["name"] = .string(info.name)
                fields["backend"] = .string(info.backend)
                if let vendorID = info.vendorID { fields["vendorID"] = .string(String(format: "%04X", vendorID)) }
                if let productID = info.productID { fields["productID"] = .string(String(format: "%04X", productID)) }
                if let serialNumber = info.serialNumber { fields["serialNumber"] = .string(serialNumber) }
                return .object(fields)
            }
            await send(Self.success(id: id, .array(readers)))
        case "events":
            let events = await bus.subscribe()
            await send(Self.success(id: id, "subscribed"))
            for await event in events {
                try Task.checkCancellation()
                await send(["id": id, "event": .object(event.fields)])
            }
        case "apdu":
            guard case .array(let items)? = request["apdus"] else {
                throw ControlError("badRequest", "'apdus' must be an array of hex strings")
            }
            var flow: [String: JSONValue] = ["kind": "apdu", "apdus": .array(items)]
            if let expect = request["expect"] { flow["expect"] = expect }
            try await submit(.object(flow), request: request, id: id, send: send)
        case "flow":
            guard let flow = request["flow"] else { throw ControlError("badRequest", "'flow' is missing") }
            try await submit(flow, request: request, id: id, send: send)
        case "watch":
            try await watch(try jobID(request), id: id, send: send)
        case "cancel":
            let job = try jobID(request)
            guard await jobs.cancel(job) else { throw ControlError("unknownJob", "job \(job) is not running") }
            await send(Self.success(id: id, ["cancelled": .bool(true), "job": .number(Double(job))]))
        case "jobs":
            guard let log else { throw ControlError("jobLogUnavailable", "the job log is not open") }
            let limit = request["limit"]?.intValue ?? 50
            guard (1...10_000).contains(limit) else { throw ControlError("badRequest", "'limit' must be 1 to 10000") }
            let records = try await log.jobs(limit: limit)
            await send(Self.success(id: id, try JSONValue(encoding: records)))
        case "job":
            guard let log else { throw ControlError("jobLogUnavailable", "the job log is not open") }
            let job = try jobID(request)
            guard let record = try await log.job(job) else { throw ControlError("unknownJob", "no job \(job)") }
            var result = try JSONValue(encoding: record)
            if case .object(var fields) = result {
                fields["events"] = try JSONValue(encoding: try await log.events(of: job))
                result = .object(fields)
            }
            await send(Self.success(id: id, result))
        case "metrics":
            await send(Self.success(id: id, .string(metrics.exposition())))
        case "":
            throw ControlError("badRequest", "'op' is missing")
        default:
            throw ControlError(
                "unknownOp",
                "unknown op '\(operation)'; known: ping, readers, events, apdu, flow, watch, cancel, jobs, job, metrics"
            )
        }
    }

    private func submit(
        _ flowJSON: JSONValue, request: JSONValue, id: JSONValue,
        send: @escaping @Sendable (JSONValue) async -> Void
    ) async throws {
        guard let readerID = request["reader"]?.stringValue else {
            throw ControlError("badRequest", "'reader' is missing")
        }
        guard let reader = await fleet.reader(id: readerID) else {
            throw ControlError("unknownReader", "no reader '\(readerID)'; ask 'readers' for the list")
        }
        let specification: FlowSpecification
        do {
            specification = try flowKinds.decoder().decode(FlowSpecification.self, from: JSONEncoder().encode(flowJSON))
        } catch let error as DecodingError {
            throw ControlError("badRequest", "flow: " + DaemonConfigurationError.describe(error))
        }
        let follow = request["follow"] == .bool(true)
        // Subscribe before submitting so that no event of the job is missed.
        let events = follow ? await bus.subscribe() : nil
        let job = await jobs.submit(
            specification, on: reader, rule: nil, trigger: .request, policy: await fleet.policy())
        if let events {
            // Followed: the job number first (not the final answer), then its events, then its record.
            await send(["id": id, "accepted": ["job": .number(Double(job))]])
            try await stream(job, events: events, id: id, send: send)
        } else {
            await send(Self.success(id: id, ["job": .number(Double(job))]))
        }
    }

    private func watch(_ job: JobID, id: JSONValue, send: @escaping @Sendable (JSONValue) async -> Void) async throws {
        let events = await bus.subscribe()
        guard await jobs.runningJobs.contains(job) else {
            // Finished already: answer with its record.
            guard let log, let record = try await log.job(job) else {
                throw ControlError("unknownJob", "no job \(job)")
            }
            await send(Self.success(id: id, try JSONValue(encoding: record)))
            return
        }
        try await stream(job, events: events, id: id, send: send)
    }

    private func stream(
        _ job: JobID, events: AsyncStream<DaemonEvent>, id: JSONValue,
        send: @escaping @Sendable (JSONValue) async -> Void
    ) async throws {
        for await event in events where event.jobID == job {
            try Task.checkCancellation()
            await send(["id": id, "event": .object(event.fields)])
            if case .jobFinished(_, let state, let error) = event {
                if let log, let record = try await log.job(job) {
                    await send(Self.success(id: id, try JSONValue(encoding: record)))
                } else {
                    await send(
                        Self.success(
                            id: id,
                            [
                                "job": .number(Double(job)), "state": .string(state.rawValue),
                                "error": error.map(JSONValue.string) ?? .null,
                            ]))
                }
                return
            }
        }
    }

    private func jobID(_ request: JSONValue) throws -> JobID {
        guard let value = request["job"]?.intValue else {
            throw ControlError("badRequest", "'job' must be a job number")
        }
        return JobID(value)
    }

    static func success(id: JSONValue, _ result: JSONValue) -> JSONValue {
        ["id": id, "ok": .bool(true), "result": result]
    }

    static func failure(id: JSONValue, _ error: ControlError) -> JSONValue {
        ["id": id, "ok": .bool(false), "error": error.json]
    }
}
