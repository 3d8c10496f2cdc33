extension BenchTextRenderer {
    /// Per-operation timings as a table, then the operations skipped and why.
    static func operationsLines(_ operations: OperationsResult) -> [String] {
        var lines = ["operations (\(operations.family)):"]
        if operations.operations.isEmpty {
            lines.append("  none measured")
        } else {
            var table = TextTable(
                headers: ["operation", "mode", "bytes", "APDUs/op", "p50", "p90", "ops/s", "count"],
                alignments: [.left, .left, .right, .right, .right, .right, .right, .right])
            for operation in operations.operations {
                let statistics = operation.statistics
                table.append([
                    operation.name + (operation.writes ? " (writes)" : ""), operation.commMode ?? "–",
                    operation.bytes.map(String.init) ?? "–",
                    BenchNumberFormat.significant(operation.apdusPerOperation),
                    BenchNumberFormat.duration(statistics.p50Ns), BenchNumberFormat.duration(statistics.p90Ns),
                    BenchNumberFormat.rate(statistics.apdusPerSecond), String(statistics.count),
                ])
            }
            lines += table.lines()
        }
        if !operations.skipped.isEmpty {
            lines.append("skipped:")
            for skipped in operations.skipped { lines.append("  \(skipped.name): \(skipped.reason)") }
        }
        return lines
    }
}
