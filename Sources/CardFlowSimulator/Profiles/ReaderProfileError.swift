/// Why a reader descriptor dump could not be turned into a ``ReaderProfile``.
public enum ReaderProfileError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The dump file could not be read.
    case unreadableFile(path: String, reason: String)
    /// A line appeared where something else was expected (for example a field before the
    /// first `idVendor`, or an unknown `field:` name).
    case unexpectedLine(line: Int, expected: String, found: String)
    /// A known field has a value in the wrong format.
    case malformedValue(line: Int, field: String, expected: String, found: String)
    /// A field appears twice in one interface block.
    case duplicateField(line: Int, field: String)
    /// An interface block (starting at `line`) lacks a required field.
    case missingField(line: Int, field: String)
    /// Interface blocks of one file disagree on a device-level field (vendor, product, release).
    case inconsistentDevice(line: Int, field: String, expected: String, found: String)
    /// The text contains no interface block at all.
    case noInterface

    /// The 1-based line number the error refers to (0 when it concerns the whole input).
    public var line: Int {
        switch self {
        case .unreadableFile, .noInterface: 0
        case .unexpectedLine(let line, _, _), .malformedValue(let line, _, _, _),
            .duplicateField(let line, _), .missingField(let line, _),
            .inconsistentDevice(let line, _, _, _):
            line
        }
    }

    /// What the parser expected at ``line``.
    public var expected: String {
        switch self {
        case .unreadableFile: "a readable file"
        case .unexpectedLine(_, let expected, _): expected
        case .malformedValue(_, let field, let expected, _): "\(field): \(expected)"
        case .duplicateField(_, let field): "a single \(field) per interface"
        case .missingField(_, let field): "a \(field) line in the interface block"
        case .inconsistentDevice(_, let field, let expected, _): "\(field) \(expected) as in the first interface"
        case .noInterface: "at least one interface block starting with idVendor"
        }
    }

    /// A one-line explanation.
    public var description: String {
        switch self {
        case .unreadableFile(let path, let reason): "cannot read reader dump \(path): \(reason)"
        case .unexpectedLine(let line, let expected, let found):
            "line \(line): expected \(expected), found \"\(found)\""
        case .malformedValue(let line, let field, let expected, let found):
            "line \(line): \(field) should be \(expected), found \"\(found)\""
        case .duplicateField(let line, let field): "line \(line): \(field) repeated in one interface block"
        case .missingField(let line, let field): "interface block at line \(line) has no \(field)"
        case .inconsistentDevice(let line, let field, let expected, let found):
            "line \(line): \(field) is \(found) but the first interface says \(expected)"
        case .noInterface: "no interface block (idVendor …) found"
        }
    }
}
