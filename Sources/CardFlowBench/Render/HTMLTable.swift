/// A plain HTML table from text cells (escaped here), numeric columns right aligned.
struct HTMLTable {
    var headers: [String]
    /// Columns whose cells are numbers (right aligned, tabular digits).
    var numericColumns: Set<Int>
    var rows: [[String]] = []
    var className: String

    /// An empty table.
    ///
    /// - Parameters:
    ///   - headers: column titles.
    ///   - numericColumns: indexes of the columns holding numbers.
    ///   - className: the table's class.
    init(headers: [String], numericColumns: Set<Int> = [], className: String = "data") {
        self.headers = headers
        self.numericColumns = numericColumns
        self.className = className
    }

    /// Adds a row.
    ///
    /// - Parameter cells: the row's text, column by column.
    mutating func append(_ cells: [String]) {
        rows.append(cells)
    }

    /// The `<table>`.
    var markup: String {
        func cell(_ tag: String, _ text: String, _ column: Int) -> String {
            let attribute = numericColumns.contains(column) ? " class=\"num\"" : ""
            return "<\(tag)\(attribute)>\(HTMLText.escape(text))</\(tag)>"
        }
        var html = "<table class=\"\(HTMLText.escape(className))\"><thead><tr>"
        html += headers.enumerated().map { cell("th", $0.element, $0.offset) }.joined()
        html += "</tr></thead><tbody>\n"
        for row in rows {
            html += "<tr>" + row.enumerated().map { cell("td", $0.element, $0.offset) }.joined() + "</tr>\n"
        }
        return html + "</tbody></table>"
    }

    /// A two-column table of names and values (a fact sheet), without a header row.
    ///
    /// - Parameters:
    ///   - facts: name and value pairs, in order.
    ///   - className: the table's class.
    /// - Returns: the `<table>`.
    static func facts(_ facts: [(String, String)], className: String = "facts") -> String {
        var html = "<table class=\"\(HTMLText.escape(className))\"><tbody>\n"
        for (name, value) in facts {
            html += "<tr><th scope=\"row\">\(HTMLText.escape(name))</th><td>\(HTMLText.escape(value))</td></tr>\n"
        }
        return html + "</tbody></table>"
    }
}
