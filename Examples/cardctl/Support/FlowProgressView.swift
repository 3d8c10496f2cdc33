import CardFlow
import Foundation

/// Shows a flow's events on stderr. Recovery events (card lost, waiting, wrong card, resumed,
/// retrying) always get a line, and with `--trace` every event does; nothing is shown with
/// `--json`. When stderr is a terminal, steps and progress fractions also draw a progress bar,
/// redrawn in place and erased when the flow ends (`desfire provision`, `ton activate`,
/// `iso15693 exchange`).
struct FlowProgressView {
    let everyEvent: Bool
    let quiet: Bool
    let drawsBar: Bool
    private var barShown = false
    private var label = ""

    static var standardErrorIsTerminal: Bool { isatty(STDERR_FILENO) == 1 }

    init(trace: Bool, json: Bool, terminal: Bool = FlowProgressView.standardErrorIsTerminal) {
        everyEvent = trace
        quiet = json
        drawsBar = terminal && !json
    }

    /// Consumes the flow's events until it ends. Commands that print answers while the flow runs
    /// pass `bar: false`, so that the bar and their stdout lines do not share a terminal line.
    static func show(_ events: AsyncStream<FlowEvent>, trace: Bool, json: Bool, bar: Bool = true) async {
        var view = FlowProgressView(trace: trace, json: json, terminal: bar && standardErrorIsTerminal)
        for await event in events { view.handle(event) }
    }

    mutating func handle(_ event: FlowEvent) {
        guard !quiet else { return }
        if everyEvent || Self.isRecovery(event) {
            erase()
            Output.standardError("cardctl: \(event)")
        }
        guard drawsBar else { return }
        switch event {
        case .stepStarted(let index, let total, let name):
            label = "\(index + 1)/\(total) \(name)"
            draw(Double(index) / Double(max(total, 1)))
        case .stepFinished(let index, let total, _):
            draw(Double(index + 1) / Double(max(total, 1)))
        case .progress(let fraction):
            draw(fraction)
        case .completed, .failed:
            erase()
        default:
            break
        }
    }

    static func isRecovery(_ event: FlowEvent) -> Bool {
        switch event {
        case .waitingForCard, .cardLost, .wrongCard, .resumed, .retrying: true
        default: false
        }
    }

    /// `[##########··········]  50% 3/7 create application`
    static func bar(_ fraction: Double, label: String, width: Int = 24) -> String {
        let clamped = min(max(fraction.isFinite ? fraction : 0, 0), 1)
        let filled = Int((clamped * Double(width)).rounded(.down))
        let percent = Int((clamped * 100).rounded())
        let padded = String(repeating: " ", count: max(0, 3 - String(percent).count)) + String(percent)
        return "[" + String(repeating: "#", count: filled) + String(repeating: "·", count: width - filled) + "] "
            + padded + "% " + label
    }

    private mutating func draw(_ fraction: Double) {
        FileHandle.standardError.write(Data(("\r" + Self.bar(fraction, label: label) + "\u{1B}[K").utf8))
        barShown = true
    }

    private mutating func erase() {
        guard barShown else { return }
        FileHandle.standardError.write(Data("\r\u{1B}[K".utf8))
        barShown = false
    }
}
