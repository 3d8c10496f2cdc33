import CardFlowDaemonControl
import Foundation

/// Prints daemon events as one human line each on stdout (the `--simulate` view).
struct TerminalProgress {
    func show(_ events: AsyncStream<DaemonEvent>) async {
        for await event in events {
            let line: String? =
                switch event {
                case .readerAdded(let id, let name): "reader \(id) added: \(name)"
                case .readerRemoved(let id): "reader \(id) removed"
                case .cardArrived(let reader): "\(reader): card arrived"
                case .cardLeft(let reader): "\(reader): card left"
                case .cardHandled: nil
                case .jobStarted(let job, let reader, let flow, let rule):
                    "\(reader): job \(job) \(flow) started (rule \(rule ?? "-"))"
                case .jobProgress(let job, let kind, let detail, _):
                    ["stepFinished", "waitingForCard", "cardLost", "wrongCard", "resumed", "connected"].contains(kind)
                        ? "  job \(job): \(detail)" : nil
                case .jobFinished(let job, let state, let error):
                    "  job \(job): \(state.rawValue)\(error.map { " — \($0)" } ?? "")"
                }
            if let line {
                FileHandle.standardOutput.write(Data((line + "\n").utf8))
            }
        }
    }
}
