/// A bench document as one self-contained HTML page (`cardctl bench --report FILE`): the
/// machine and command, then per run the reader and card, the results as tables and inline SVG
/// charts, and the document's raw JSON at the end. The page loads nothing (no scripts, fonts,
/// images or style sheets from anywhere); every text from the document is escaped; the same
/// document always gives the same page.
///
/// Every chart is an `<svg class="chart">` with a `data-chart` attribute naming it:
/// `latency-histogram`, `percentile-curve`, `sweep`, `operations` or `comparison`.
public enum BenchHTMLReport {
    /// The page.
    ///
    /// - Parameter document: what was measured.
    /// - Returns: an HTML5 document.
    public static func render(_ document: BenchDocument) -> String {
        let commandLine = (["cardctl"] + document.command).joined(separator: " ")
        var html = """
            <!DOCTYPE html>
            <html lang="en">
            <head>
            <meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <title>CardFlow bench: \(HTMLText.escape(commandLine))</title>
            <style>
            \(BenchHTMLStyle.css)
            </style>
            </head>
            <body>
            <main>

            """
        html += header(document, commandLine: commandLine)
        for (index, run) in document.runs.enumerated() {
            html += runSection(run, number: index + 1)
        }
        if let json = BenchDocumentJSONText.text(document) {
            html +=
                "<details class=\"raw\"><summary>Raw JSON (\(HTMLText.escape(document.schema)))</summary>\n"
                + "<pre class=\"json\"><code>\(HTMLText.escape(json))</code></pre></details>\n"
        }
        html += "</main>\n</body>\n</html>\n"
        return html
    }

    static func header(_ document: BenchDocument, commandLine: String) -> String {
        let machine = document.machine
        var facts: [(String, String)] = [
            ("Command", commandLine), ("Seed", String(document.seed)), ("Machine", machine.hostName),
            ("System", machine.operatingSystem),
        ]
        if let cpu = machine.cpuModel { facts.append(("CPU", cpu)) }
        facts += [
            ("Processors", String(machine.processorCount)), ("CardFlow", document.cardflowVersion),
            ("Generated", document.generatedAt), ("Schema", document.schema),
        ]
        var html = "<header class=\"document\">\n<h1>CardFlow bench report</h1>\n" + HTMLTable.facts(facts) + "\n"
        if document.runs.isEmpty {
            html += "<p>No runs.</p>\n"
        } else {
            html += "<nav><ol>\n"
            for (index, run) in document.runs.enumerated() {
                html += "<li><a href=\"#run-\(index + 1)\">\(HTMLText.escape(runTitle(run)))</a></li>\n"
            }
            html += "</ol></nav>\n"
        }
        return html + "</header>\n"
    }

    static func runTitle(_ run: BenchRun) -> String {
        let kind: String
        switch run.kind {
        case .latency: kind = "Latency"
        case .sweep: kind = "Size sweep"
        case .operations: kind = "Operations" + (run.operations.map { " (\($0.family))" } ?? "")
        case .comparison: kind = "Comparison"
        }
        return "\(kind): \(run.reader.name)"
    }

    static func runSection(_ run: BenchRun, number: Int) -> String {
        var html = "<section class=\"run\" id=\"run-\(number)\">\n"
        html += "<h2>\(number). \(HTMLText.escape(runTitle(run)))</h2>\n"
        if run.interrupted {
            html +=
                "<p class=\"interrupted\"><strong>Interrupted:</strong> "
                + HTMLText.escape(run.interruption ?? "the run ended early")
                + "; results cover what was measured.</p>\n"
        }
        html += identityTable(run.reader, card: run.card, clock: run.clock)
        switch run.kind {
        case .latency:
            html += run.latency.map(latencySection) ?? "<p>No latency result.</p>\n"
        case .sweep:
            html += run.sweep.map(sweepSection) ?? "<p>No sweep result.</p>\n"
        case .operations:
            html += run.operations.map(operationsSection) ?? "<p>No operations result.</p>\n"
        case .comparison:
            html += run.comparison.map(comparisonSection) ?? "<p>No comparison result.</p>\n"
        }
        html += "<p class=\"method\"><strong>Method:</strong> \(HTMLText.escape(run.method))</p>\n"
        return html + "</section>\n"
    }

    /// The reader (and card, and clock) as a fact sheet.
    static func identityTable(_ reader: BenchReaderIdentity, card: BenchCardIdentity?, clock: String?) -> String {
        var facts: [(String, String)] = [("Reader", reader.name), ("ID", reader.id), ("Backend", reader.backend)]
        let optional: [(String, String?)] = [
            ("USB VID:PID", reader.usbID), ("Serial number", reader.serialNumber), ("Firmware", reader.firmware),
            ("Exchange level", reader.exchangeLevel), ("Protocol", reader.cardProtocol), ("Speed", reader.speed),
        ]
        facts += optional.compactMap { name, value in value.map { (name, $0) } }
        facts += reader.details.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
        if let card {
            if let name = card.name { facts.append(("Card", name)) }
            facts.append(("ATR", card.atr.isEmpty ? "(none)" : card.atr))
        }
        if let clock { facts.append(("Clock", clock)) }
        return HTMLTable.facts(facts, className: "facts identity") + "\n"
    }

    static func figure(_ svg: String, caption: String) -> String {
        "<figure>\(svg)<figcaption>\(HTMLText.escape(caption))</figcaption></figure>\n"
    }
}
