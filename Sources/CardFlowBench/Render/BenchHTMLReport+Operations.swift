extension BenchHTMLReport {
    /// The bar chart, the table of operations and the operations skipped.
    static func operationsSection(_ operations: OperationsResult) -> String {
        var html = figure(OperationsChart.svg(operations), caption: "Time per operation: bar p50, mark p90.")
        if !operations.operations.isEmpty {
            var table = HTMLTable(
                headers: [
                    "operation", "comm mode", "bytes", "APDUs/op", "p50", "p90", "p99", "ops/s", "count", "writes",
                ],
                numericColumns: [2, 3, 4, 5, 6, 7, 8])
            for operation in operations.operations {
                let statistics = operation.statistics
                table.append([
                    operation.name, operation.commMode ?? "–", operation.bytes.map(String.init) ?? "–",
                    BenchNumberFormat.significant(operation.apdusPerOperation),
                    BenchNumberFormat.duration(statistics.p50Ns), BenchNumberFormat.duration(statistics.p90Ns),
                    BenchNumberFormat.duration(statistics.p99Ns), BenchNumberFormat.rate(statistics.apdusPerSecond),
                    String(statistics.count), operation.writes ? "yes" : "no",
                ])
            }
            html += table.markup + "\n"
        }
        if !operations.skipped.isEmpty {
            html += "<h3>Skipped</h3>\n<ul class=\"plain\">\n"
            for skipped in operations.skipped {
                html +=
                    "<li><strong>\(HTMLText.escape(skipped.name))</strong>: \(HTMLText.escape(skipped.reason))</li>\n"
            }
            html += "</ul>\n"
        }
        return html
    }
}
