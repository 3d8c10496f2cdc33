/// A bench document as plain text for a terminal (`cardctl bench` without `--json`): the
/// machine, then per run the reader and card, the results as tables and a text histogram, the
/// events that explain outliers and how the samples were taken. No colours, no terminal codes.
///
/// ```swift
/// print(BenchTextRenderer.render(document, width: 100), terminator: "")
/// ```
public enum BenchTextRenderer {
    /// The document as text.
    ///
    /// - Parameters:
    ///   - document: what was measured.
    ///   - width: the terminal's width in characters (histogram bars and rules fill it; 40 to
    ///     400).
    /// - Returns: lines ending in a newline.
    public static func render(_ document: BenchDocument, width: Int = 80) -> String {
        let width = min(max(width, 40), 400)
        var lines: [String] = []
        lines.append("CardFlow \(document.cardflowVersion) bench, \(document.generatedAt) (\(document.schema))")
        lines.append("command: cardctl \(document.command.joined(separator: " ")) (seed \(document.seed))")
        lines.append("machine: " + machineText(document.machine))
        if document.runs.isEmpty {
            lines.append("")
            lines.append("no runs")
        }
        for (index, run) in document.runs.enumerated() {
            lines.append("")
            lines.append(rule("run \(index + 1) of \(document.runs.count): \(run.kind.rawValue)", width: width))
            lines += runLines(run, width: width)
        }
        return lines.joined(separator: "\n") + "\n"
    }

    static func machineText(_ machine: BenchMachine) -> String {
        var parts = [machine.hostName, machine.operatingSystem]
        if let cpu = machine.cpuModel { parts.append(cpu) }
        parts.append(machine.processorCount == 1 ? "1 processor" : "\(machine.processorCount) processors")
        return parts.joined(separator: ", ")
    }

    static func rule(_ title: String, width: Int) -> String {
        let head = "── " + title + " "
        return head + String(repeating: "─", count: max(3, width - head.count))
    }

    static func runLines(_ run: BenchRun, width: Int) -> [String] {
        var lines = identityLines(reader: run.reader)
        if let card = run.card { lines.append("card:    " + cardText(card)) }
        lines.append("clock:   " + run.clock)
        if run.interrupted {
            let reason = run.interruption ?? "the run ended early"
            lines.append("interrupted: \(reason); results cover what was measured")
        }
        if let failure = run.failure { lines.append("FAILED: measured nothing: \(failure)") }
        switch run.kind {
        case .latency:
            if let latency = run.latency {
                lines += latencyLines(latency, width: width)
            } else {
                lines.append("latency: no result")
            }
        case .sweep:
            if let sweep = run.sweep { lines += sweepLines(sweep) } else { lines.append("sweep: no result") }
        case .operations:
            if let operations = run.operations {
                lines += operationsLines(operations)
            } else {
                lines.append("operations: no result")
            }
        case .comparison:
            if let comparison = run.comparison {
                lines += comparisonLines(comparison)
            } else {
                lines.append("comparison: no result")
            }
        }
        lines.append("method: " + run.method)
        return lines
    }

    /// The reader's identity: name and id, backend and USB facts, then what its driver
    /// negotiated, then its other details.
    static func identityLines(reader: BenchReaderIdentity, label: String = "reader:  ") -> [String] {
        var first = ["\(reader.name) (\(reader.id))", "backend \(reader.backend)"]
        if let usbID = reader.usbID { first.append(usbID) }
        if let serial = reader.serialNumber { first.append("serial \(serial)") }
        if let firmware = reader.firmware { first.append("firmware \(firmware)") }
        var lines = [label + first.joined(separator: ", ")]
        var link: [String] = []
        if let level = reader.exchangeLevel { link.append("exchange \(level)") }
        if let cardProtocol = reader.cardProtocol { link.append("protocol \(cardProtocol)") }
        if let speed = reader.speed { link.append("speed \(speed)") }
        if !link.isEmpty { lines.append("link:    " + link.joined(separator: ", ")) }
        if !reader.details.isEmpty {
            let details = reader.details.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }
            lines.append("details: " + details.joined(separator: ", "))
        }
        return lines
    }

    static func cardText(_ card: BenchCardIdentity) -> String {
        (card.name.map { $0 + ", " } ?? "") + "ATR " + (card.atr.isEmpty ? "(none)" : card.atr)
    }

    /// "CardFlow" for the label "cardflow"; other labels as they are.
    static func sideName(_ label: String) -> String {
        label == "cardflow" ? "CardFlow" : label
    }
}
