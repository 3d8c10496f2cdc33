import Foundation

/// The files `cardctl fleet import` reads: one record per line of JSON, or CSV with a header.
///
/// JSON lines: `{"ref": "EMP-0001", "flow": {"text": "Alice Example", "data": "0102"}}` — `ref` is
/// unique in the batch, `flow` holds the parameters the daemon's fleet rule merges over its
/// template (so per-card values go here, shared ones in the rule).
///
/// CSV (RFC 4180 quoting): a `ref` column and one column per parameter; cells are strings unless
/// the header says `name:int` or `name:bool`. Empty cells are left out.
///
/// ```
/// ref,text,file:int
/// EMP-0001,Alice Example,1
/// ```
///
/// Records never carry keys: a parameter named like key material (`key`, `appKey`, `pin`,
/// `password`, `secret`…) is refused; key-store references end in `Slot` (`keySlot`) or
/// `Secret` (`pinSecret`).
public enum FleetRecordFile {
    public enum Format: String, Sendable, Hashable, CaseIterable {
        case jsonLines = "jsonl"
        case csv

        /// From the file name's extension (`.csv`; anything else is JSON lines).
        public init(path: String) {
            self = path.lowercased().hasSuffix(".csv") ? .csv : .jsonLines
        }
    }

    /// The largest record parameters accepted (a JSON object, bytes).
    public static let maximumParameterBytes = 16_384

    /// Parses a whole file; the first bad record fails it with its line number.
    public static func parse(_ text: String, format: Format) throws(FleetStoreError) -> [FleetRecordInput] {
        switch format {
        case .jsonLines: try parseJSONLines(text)
        case .csv: try parseCSV(text)
        }
    }

    private static func parseJSONLines(_ text: String) throws(FleetStoreError) -> [FleetRecordInput] {
        var records: [FleetRecordInput] = []
        var seen: Set<String> = []
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let trimmed = line.trimmingCharacters(in: .whitespacesAndNewlines)
            if trimmed.isEmpty { continue }
            let number = index + 1
            guard let object = try? JSONSerialization.jsonObject(with: Data(trimmed.utf8)) as? [String: Any] else {
                throw .invalidRecord(line: number, reason: "not a JSON object")
            }
            guard let reference = object["ref"] as? String else {
                throw .invalidRecord(line: number, reason: "no \"ref\" string")
            }
            guard let flow = object["flow"] as? [String: Any] else {
                throw .invalidRecord(line: number, reason: "no \"flow\" object with the record's parameters")
            }
            if let extra = object.keys.first(where: { $0 != "ref" && $0 != "flow" }) {
                throw .invalidRecord(line: number, reason: "unknown field \"\(extra.prefix(40))\" (only ref and flow)")
            }
            records.append(try record(reference, flow, line: number, seen: &seen))
        }
        return records
    }

    private static func parseCSV(_ text: String) throws(FleetStoreError) -> [FleetRecordInput] {
        let rows = try csvRows(text)
        guard let header = rows.first else { return [] }
        enum Kind { case string, int, bool }
        var columns: [(name: String, kind: Kind)] = []
        for cell in header.cells {
            let parts = cell.split(separator: ":", maxSplits: 1).map(String.init)
            let name = parts.first ?? ""
            let kind: Kind
            switch parts.count > 1 ? parts[1] : "string" {
            case "string", "text": kind = .string
            case "int": kind = .int
            case "bool": kind = .bool
            default:
                throw .invalidRecord(
                    line: header.line, reason: "column '\(cell.prefix(40))': type is string, int or bool")
            }
            guard !name.isEmpty else { throw .invalidRecord(line: header.line, reason: "a column has no name") }
            columns.append((name, kind))
        }
        guard let referenceColumn = columns.firstIndex(where: { $0.name == "ref" }) else {
            throw .invalidRecord(line: header.line, reason: "the header has no 'ref' column")
        }
        var records: [FleetRecordInput] = []
        var seen: Set<String> = []
        for row in rows.dropFirst() {
            if row.cells.count == 1, row.cells[0].isEmpty { continue }
            guard row.cells.count == columns.count else {
                throw .invalidRecord(
                    line: row.line, reason: "\(row.cells.count) cells; the header has \(columns.count)")
            }
            var flow: [String: Any] = [:]
            for (index, column) in columns.enumerated() where index != referenceColumn {
                let cell = row.cells[index]
                if cell.isEmpty { continue }
                switch column.kind {
                case .string: flow[column.name] = cell
                case .int:
                    guard let value = Int(cell) else {
                        throw .invalidRecord(
                            line: row.line, reason: "\(column.name): '\(cell.prefix(40))' is not an integer")
                    }
                    flow[column.name] = value
                case .bool:
                    guard let value = ["true": true, "false": false][cell.lowercased()] else {
                        throw .invalidRecord(
                            line: row.line, reason: "\(column.name): '\(cell.prefix(40))' is not true or false")
                    }
                    flow[column.name] = value
                }
            }
            records.append(try record(row.cells[referenceColumn], flow, line: row.line, seen: &seen))
        }
        return records
    }

    private static func record(
        _ reference: String, _ flow: [String: Any], line: Int, seen: inout Set<String>
    ) throws(FleetStoreError) -> FleetRecordInput {
        guard (1...256).contains(reference.count) else {
            throw .invalidRecord(line: line, reason: "a ref has 1 to 256 characters")
        }
        guard seen.insert(reference).inserted else {
            throw .invalidRecord(line: line, reason: "ref '\(reference.prefix(60))' appears twice in the file")
        }
        if flow["kind"] != nil {
            throw .invalidRecord(line: line, reason: "the flow kind comes from the daemon's fleet rule, not the record")
        }
        for name in flow.keys.sorted() where looksLikeKeyMaterial(name) {
            throw .invalidRecord(
                line: line,
                reason: "parameter '\(name.prefix(40))' looks like key material; records name key-store slots "
                    + "(…Slot) or secrets (…Secret), never keys")
        }
        guard let data = try? JSONSerialization.data(withJSONObject: flow, options: [.sortedKeys]),
            data.count <= maximumParameterBytes
        else {
            throw .invalidRecord(line: line, reason: "parameters larger than \(maximumParameterBytes) bytes")
        }
        return FleetRecordInput(reference: reference, parameters: Array(data))
    }

    /// Whether a parameter name says it holds a key, PIN, password or secret itself (rather
    /// than naming a key-store slot or secret).
    public static func looksLikeKeyMaterial(_ name: String) -> Bool {
        // Words of camelCase, snake_case or kebab-case; a run of capitals is one word (PIN).
        var words: [String] = []
        var current = ""
        var previousWasLower = false
        for character in name {
            if character == "_" || character == "-" || (character.isUppercase && previousWasLower) {
                if !current.isEmpty { words.append(current) }
                current = ""
            }
            if character.isLetter || character.isNumber { current.append(Character(character.lowercased())) }
            previousWasLower = character.isLowercase || character.isNumber
        }
        if !current.isEmpty { words.append(current) }
        guard let last = words.last else { return false }
        if last == "slot" || last == "secret" && words.count > 1 { return false }
        let sensitive: Set<String> = ["key", "keys", "pin", "puk", "password", "passwd", "pwd", "secret", "pass"]
        return words.contains { sensitive.contains($0) }
    }

    private struct CSVRow {
        var line: Int
        var cells: [String]
    }

    private static func csvRows(_ text: String) throws(FleetStoreError) -> [CSVRow] {
        var rows: [CSVRow] = []
        var cells: [String] = []
        var cell = ""
        var quoted = false
        var line = 1
        var rowLine = 1
        var characters = Array(text.replacingOccurrences(of: "\r\n", with: "\n"))[...]
        while let character = characters.popFirst() {
            if quoted {
                if character == "\"" {
                    if characters.first == "\"" {
                        characters.removeFirst()
                        cell.append("\"")
                    } else {
                        quoted = false
                    }
                } else {
                    if character == "\n" { line += 1 }
                    cell.append(character)
                }
                continue
            }
            switch character {
            case "\"" where cell.isEmpty: quoted = true
            case ",":
                cells.append(cell)
                cell = ""
            case "\n":
                cells.append(cell)
                rows.append(CSVRow(line: rowLine, cells: cells))
                cells = []
                cell = ""
                line += 1
                rowLine = line
            default: cell.append(character)
            }
        }
        if quoted { throw .invalidRecord(line: rowLine, reason: "a quoted cell is not closed") }
        if !cell.isEmpty || !cells.isEmpty {
            cells.append(cell)
            rows.append(CSVRow(line: rowLine, cells: cells))
        }
        return rows
    }
}
