import CardFlow
import Logging

/// Relays a remote service's APDUs to a card: the card is admitted by SELECTing the configured
/// application, the service gets the card's identity over WebSocket and sends APDUs, the client
/// returns the card's answers, until the service says done or failed. A card lifted mid-sync is
/// waited for (``/CardFlow/SessionPolicy/cardReturnTimeout``), other cards are reported and left alone, and
/// the service is told the card was reset when it is back.
///
/// ```swift
/// let client = RelayClient(configuration: RelayConfiguration(url: "wss://sync.example.com/sync", bearerToken: token))
/// let run = client.start(on: reader)
/// Task { for await event in run.progress { print(event) } }
/// let result = try await run.result      // RelayError tells why it failed
/// ```
public struct RelayClient: Sendable {
    public var configuration: RelayConfiguration
    public var logger: Logger

    public init(configuration: RelayConfiguration, logger: Logger = Logger(label: "cardflow.relay")) {
        self.configuration = configuration
        self.logger = logger
    }

    /// Starts a sync on the reader's card. Retries of the policy are not used (the service
    /// decides what to do again); its card-return timeout bounds the wait for a lifted card.
    public func start(on reader: Reader, policy: SessionPolicy = .default) -> RelayRun {
        RelayRun(client: self, reader: reader, policy: policy)
    }

    /// Runs a sync and returns its result (progress events are not observed).
    public func run(on reader: Reader, policy: SessionPolicy = .default) async throws -> RelayResult {
        try await start(on: reader, policy: policy).result
    }
}

/// How a sync that completed went.
public struct RelayResult: Sendable, Hashable {
    /// The card synced.
    public let identity: CardIdentity
    /// The service's closing message, if any.
    public let message: String?
    /// APDUs the service sent to the card.
    public let apduCount: Int
    /// How often the card left and came back.
    public let resumes: Int
}

/// A running sync: its events and its result. Cancelling the task that awaits ``result`` (or
/// calling ``cancel()``) tells the service, aborts the APDU in flight and frees the reader.
public struct RelayRun: Sendable {
    /// Events from waiting for the card to completed or failed; ends after the last. A slow or
    /// absent consumer sees the newest ``progressBufferSize`` (the last is always completed or
    /// failed): a service sending progress without end costs bounded memory.
    public let progress: AsyncStream<RelayEvent>
    private let task: Task<RelayResult, any Error>

    /// Events kept for a consumer that has not read them yet.
    public static var progressBufferSize: Int { 1024 }

    init(client: RelayClient, reader: Reader, policy: SessionPolicy) {
        let (stream, continuation) = AsyncStream<RelayEvent>.makeStream(
            bufferingPolicy: .bufferingNewest(Self.progressBufferSize))
        progress = stream
        task = Task {
            defer { continuation.finish() }
            // A bad URL is known before the card is touched.
            let job: RelayJob
            do {
                job = try client.job(events: continuation)
            } catch {
                continuation.yield(.failed(String(describing: error)))
                throw error
            }
            let run = reader.run(job.flow, policy: job.policy(base: policy))
            let flowEvents = Task {
                for await event in run.progress {
                    switch event {
                    case .waitingForCard: continuation.yield(.waitingForCard)
                    case .wrongCard(let identity): continuation.yield(.wrongCard(identity))
                    case .progress(let fraction): continuation.yield(.syncing(fraction))
                    default: break
                    }
                }
            }
            do {
                let result = try await run.value
                await flowEvents.value
                await job.finish(after: nil)
                continuation.yield(.completed(message: result.message))
                return result
            } catch {
                await flowEvents.value
                let cancelled = Task.isCancelled || error is CancellationError
                await job.finish(after: error)
                continuation.yield(.failed(cancelled ? "cancelled" : RelayJob.relayError(error).description))
                if cancelled { throw CancellationError() }
                throw RelayJob.relayError(error)
            }
        }
    }

    /// The sync's result; throws ``RelayError`` (or `CancellationError` when cancelled).
    public var result: RelayResult {
        get async throws { try await task.valueCancelledWithCaller }
    }

    /// Stops the sync: the service is told, the APDU in flight aborted, the session closed.
    public func cancel() {
        task.cancel()
    }
}
