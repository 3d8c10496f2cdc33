/// A multi-step card operation composed like a promise chain: each step receives the live
/// ``CardSession`` and the previous step's result.
///
/// ```swift
/// let flow = Flow.start("select") { session in
///         try await session.send(try CommandAPDU(hex: "00A4040007A0000002471001")).statusWord
///     }
///     .then("read") { _, session in try await session.send(try CommandAPDU(hex: "00B0810020")).data }
///     .map { data in data.count }
///     .retry(2, backoff: .milliseconds(200))
///     .timeout(.seconds(30))
/// let run = reader.run(flow, policy: policy)
/// for await event in run.progress { print(event) }
/// let count = try await run.value
/// ```
///
/// When the card leaves during a step, the flow waits (bounded by the policy) for the same card,
/// reports ``FlowEvent/wrongCard(_:)`` for any other one, replays what the session registered
/// with ``CardSession/onReconnect(_:)`` and resumes at the step that did not complete.
/// Steps are idempotent unless declared otherwise; a non-idempotent step is resumed only when its
/// `verify` closure can tell whether it already took effect.
public struct Flow<Output: Sendable>: Sendable {
    var steps: [FlowStep]
    var deadline: Duration?
    var finalizers: [@Sendable (CardSession?) async -> Void]

    /// Starts a chain with its first step.
    public static func start(
        _ name: String = "step 1", idempotent: Bool = true,
        verify: (@Sendable (CardSession) async throws -> Output?)? = nil,
        _ body: @escaping @Sendable (CardSession) async throws -> Output
    ) -> Flow<Output> {
        var erasedVerify: FlowStep.Verify?
        if let verify {
            erasedVerify = { (_: any Sendable, session: CardSession) async throws -> (any Sendable)? in
                try await verify(session)
            }
        }
        let erasedBody: FlowStep.Body = { (_: any Sendable, session: CardSession) async throws -> any Sendable in
            try await body(session)
        }
        return Flow(
            steps: [FlowStep(name: name, idempotent: idempotent, verify: erasedVerify, body: erasedBody)],
            deadline: nil, finalizers: [])
    }

    /// Appends a step that receives the previous result and the session.
    public func then<Next: Sendable>(
        _ name: String? = nil, idempotent: Bool = true,
        verify: (@Sendable (Output, CardSession) async throws -> Next?)? = nil,
        _ body: @escaping @Sendable (Output, CardSession) async throws -> Next
    ) -> Flow<Next> {
        var erasedVerify: FlowStep.Verify?
        if let verify {
            erasedVerify = { (input: any Sendable, session: CardSession) async throws -> (any Sendable)? in
                try await verify(input as! Output, session)
            }
        }
        let erasedBody: FlowStep.Body = { (input: any Sendable, session: CardSession) async throws -> any Sendable in
            try await body(input as! Output, session)
        }
        let step = FlowStep(
            name: name ?? "step \(steps.count + 1)", idempotent: idempotent, verify: erasedVerify, body: erasedBody)
        return Flow<Next>(steps: steps + [step], deadline: deadline, finalizers: finalizers)
    }

    /// Appends one step per element of `items`, each receiving the previous result and its item
    /// and returning a result of the same type: for long generated chains (an APDU script, a
    /// data transfer in blocks), built in linear time where a loop of ``then(_:idempotent:verify:_:)``
    /// would copy the chain at every step.
    ///
    /// ```swift
    /// let script = Flow.start("select") { session in try await session.send(select).statusWord }
    ///     .then(forEach: blocks, name: { index, _ in "block \(index + 1)" }) { _, block, session in
    ///         try await session.send(block).statusWord
    ///     }
    /// ```
    public func then<Item: Sendable>(
        forEach items: [Item], name: (Int, Item) -> String, idempotent: Bool = true,
        _ body: @escaping @Sendable (Output, Item, CardSession) async throws -> Output
    ) -> Flow<Output> {
        var steps = self.steps
        steps.reserveCapacity(steps.count + items.count)
        for (index, item) in items.enumerated() {
            let erasedBody: FlowStep.Body = {
                (input: any Sendable, session: CardSession) async throws -> any Sendable in
                try await body(input as! Output, item, session)
            }
            steps.append(FlowStep(name: name(index, item), idempotent: idempotent, verify: nil, body: erasedBody))
        }
        return Flow(steps: steps, deadline: deadline, finalizers: finalizers)
    }

    /// Transforms the result without touching the card (part of the last step).
    public func map<Next: Sendable>(_ transform: @escaping @Sendable (Output) throws -> Next) -> Flow<Next> {
        var steps = self.steps
        let last = steps.removeLast()
        let body = last.body
        var erasedVerify: FlowStep.Verify?
        if let verify = last.verify {
            erasedVerify = { (input: any Sendable, session: CardSession) async throws -> (any Sendable)? in
                guard let done = try await verify(input, session) else { return nil }
                return try transform(done as! Output)
            }
        }
        let erasedBody: FlowStep.Body = { (input: any Sendable, session: CardSession) async throws -> any Sendable in
            try transform(try await body(input, session) as! Output)
        }
        steps.append(
            FlowStep(
                name: last.name, idempotent: last.idempotent, retry: last.retry, verify: erasedVerify, body: erasedBody)
        )
        return Flow<Next>(steps: steps, deadline: deadline, finalizers: finalizers)
    }

    /// Turns a failure of the last step (other than cancellation and card loss, which the flow
    /// handles itself) into a value.
    public func recover(_ handler: @escaping @Sendable (any Error, CardSession) async throws -> Output) -> Flow<Output>
    {
        var steps = self.steps
        let last = steps.removeLast()
        let body = last.body
        let recovering: FlowStep.Body = { (input: any Sendable, session: CardSession) async throws -> any Sendable in
            do {
                return try await body(input, session)
            } catch let error where !(error is CancellationError) && !error.meansCardLost {
                return try await handler(error, session)
            }
        }
        steps.append(
            FlowStep(
                name: last.name, idempotent: last.idempotent, retry: last.retry, verify: last.verify, body: recovering))
        return Flow(steps: steps, deadline: deadline, finalizers: finalizers)
    }

    /// Retries every step of the chain so far up to `times` more times on failure (card loss is
    /// not a failure: it is recovered by waiting for the card), pausing `backoff`, doubled each
    /// further retry.
    public func retry(_ times: Int, backoff: Duration = .zero) -> Flow<Output> {
        var copy = self
        for index in copy.steps.indices { copy.steps[index].retry = RetryPolicy(attempts: times, backoff: backoff) }
        return copy
    }

    /// Bounds the whole flow, waiting for cards included.
    public func timeout(_ duration: Duration) -> Flow<Output> {
        var copy = self
        copy.deadline = duration
        return copy
    }

    /// Runs `body` when the flow ends, however it ends (before the session is closed; the
    /// session is nil when none could be opened).
    public func ensure(_ body: @escaping @Sendable (CardSession?) async -> Void) -> Flow<Output> {
        var copy = self
        copy.finalizers.append(body)
        return copy
    }

    /// Number of card steps.
    public var stepCount: Int { steps.count }
}

/// A type-erased step of a flow.
struct FlowStep: Sendable {
    typealias Verify = @Sendable (any Sendable, CardSession) async throws -> (any Sendable)?
    typealias Body = @Sendable (any Sendable, CardSession) async throws -> any Sendable

    var name: String
    var idempotent: Bool
    var retry: RetryPolicy?
    var verify: Verify?
    var body: Body

    init(name: String, idempotent: Bool, retry: RetryPolicy? = nil, verify: Verify?, body: @escaping Body) {
        self.name = name
        self.idempotent = idempotent
        self.retry = retry
        self.verify = verify
        self.body = body
    }
}
