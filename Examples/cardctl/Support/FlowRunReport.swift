import CardFlow

/// A flow run from the CLI: its progress on stderr as it happens (a bar on a terminal unless
/// `--trace`, else one line per event), every event kept for the JSON, and its outcome.
struct FlowRunReport<Value: Sendable> {
    /// The flow's value, or why it failed.
    let outcome: Result<Value, any Error>
    /// Every event, in order, for the `--json` answer.
    let events: [EventOutput]

    /// Runs `flow` on `reader` and reports as it goes.
    static func run(_ flow: Flow<Value>, on reader: Reader, policy: SessionPolicy, trace: Bool) async -> Self {
        let run = reader.run(flow, policy: policy)
        let collector = Task { () -> [EventOutput] in
            let terminal = FlowProgressView.standardErrorIsTerminal
            var view = FlowProgressView(trace: trace || !terminal, json: false, terminal: terminal)
            var events: [EventOutput] = []
            for await event in run.progress {
                view.handle(event)
                events.append(EventOutput(event))
            }
            return events
        }
        let outcome: Result<Value, any Error>
        do { outcome = .success(try await run.value) } catch { outcome = .failure(error) }
        return Self(outcome: outcome, events: await collector.value)
    }

}

/// The error a command ends with for a failed flow: the flow error's cause.
func surfacedFlowError(_ failure: any Error) -> any Error { (failure as? FlowError)?.underlying ?? failure }
