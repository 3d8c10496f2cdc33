/// Columns of text lined up for a terminal: a header row, then rows, each column as wide as its
/// widest cell, numbers aligned right.
struct TextTable {
    /// Where a column's cells sit in it.
    enum Alignment {
        case left, right
    }

    var headers: [String]
    var alignments: [Alignment]
    var rows: [[String]] = []

    /// A table with these columns.
    ///
    /// - Parameters:
    ///   - headers: column titles.
    ///   - alignments: one per column (missing ones are left aligned).
    init(headers: [String], alignments: [Alignment]) {
        self.headers = headers
        self.alignments = alignments
    }

    /// Adds a row (missing cells are empty, extra cells are dropped).
    ///
    /// - Parameter cells: the row's text, column by column.
    mutating func append(_ cells: [String]) {
        rows.append(cells)
    }

    /// The table as lines, columns two spaces apart, trailing spaces trimmed.
    ///
    /// - Parameter indent: what each line starts with.
    /// - Returns: the header line, then one line per row.
    func lines(indent: String = "  ") -> [String] {
        let columnCount = headers.count
        var widths = headers.map(\.count)
        for row in rows {
            for column in 0..<min(columnCount, row.count) { widths[column] = max(widths[column], row[column].count) }
        }
        func line(_ cells: [String]) -> String {
            var parts: [String] = []
            for column in 0..<columnCount {
                let cell = column < cells.count ? cells[column] : ""
                let padding = String(repeating: " ", count: max(0, widths[column] - cell.count))
                let alignment = column < alignments.count ? alignments[column] : .left
                parts.append(alignment == .right ? padding + cell : cell + padding)
            }
            var text = indent + parts.joined(separator: "  ")
            while text.last == " " { text.removeLast() }
            return text
        }
        return [line(headers)] + rows.map(line)
    }
}
