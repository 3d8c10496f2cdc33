#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// pcsc-tools' ATR database, `smartcard_list.txt`: card descriptions by ATR, as people sent them
/// in. CardFlow reads the copy a system has (Debian's pcsc-tools package installs it at
/// ``debianPath``) and ships none of its own.
///
/// The file is lines: `#` comments, empty lines, an ATR pattern (see ``ATRPattern``) and below
/// it the card's description lines, each starting with a tab.
///
/// ```swift
/// if let list = try? SmartcardList(contentsOfFile: SmartcardList.debianPath) {
///     for entry in list.entries(matching: atr) { print(entry.descriptions.joined(separator: "\n")) }
/// }
/// ```
public struct SmartcardList: Sendable {
    /// One ATR pattern and its description lines.
    public struct Entry: Sendable, Hashable {
        /// The pattern line, as the file has it.
        public let pattern: String
        /// The description lines, without their leading tab.
        public let descriptions: [String]
    }

    /// Where Debian's (and Ubuntu's) pcsc-tools package installs the database.
    public static let debianPath = "/usr/share/pcsc/smartcard_list.txt"

    /// The database's own patterns and descriptions, in file order (patterns it cannot read are
    /// kept out: see ``unreadablePatterns``).
    public var entries: [Entry] { compiled.map(\.entry) }
    /// Pattern lines that use regular expression syntax ``ATRPattern`` does not read.
    public let unreadablePatterns: [String]

    private let compiled: [(entry: Entry, pattern: ATRPattern)]

    /// Parses the database's text.
    public init(text: String) {
        var compiled: [(entry: Entry, pattern: ATRPattern)] = []
        var unreadable: [String] = []
        var current: (pattern: String, descriptions: [String])?
        func finish() {
            guard let entry = current else { return }
            current = nil
            if let pattern = ATRPattern(entry.pattern) {
                compiled.append((Entry(pattern: entry.pattern, descriptions: entry.descriptions), pattern))
            } else {
                unreadable.append(entry.pattern)
            }
        }
        for rawLine in text.split(separator: "\n", omittingEmptySubsequences: false) {
            let line = rawLine.hasSuffix("\r") ? rawLine.dropLast() : rawLine
            if line.hasPrefix("\t") {
                current?.descriptions.append(String(line.dropFirst()))
            } else if line.hasPrefix("#") || line.allSatisfy({ $0 == " " }) {
                finish()
            } else {
                finish()
                current = (String(line.trimmingTrailingSpaces), [])
            }
        }
        finish()
        self.compiled = compiled
        self.unreadablePatterns = unreadable
    }

    /// Reads the database at `path`.
    ///
    /// - Throws: ``SmartcardListError`` when the file cannot be read.
    public init(contentsOfFile path: String) throws(SmartcardListError) {
        self.init(text: try Self.contents(ofFile: path))
    }

    /// The entries whose pattern matches the whole ATR, in file order.
    public func entries(matching atr: [UInt8]) -> [Entry] {
        let text = ATRPattern.text(of: atr)
        return compiled.filter { $0.pattern.matches(text) }.map(\.entry)
    }

    /// The file's text (UTF-8; invalid bytes are replaced). At most 16 MiB: the real file is
    /// well under 1 MiB.
    private static func contents(ofFile path: String) throws(SmartcardListError) -> String {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw .unreadable(path: path, errno: errno) }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw .unreadable(path: path, errno: errno)
            }
            if count == 0 { break }
            bytes += chunk[0..<count]
            guard bytes.count <= 16 << 20 else { throw .tooLarge(path: path) }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}

/// Why the ATR database could not be read.
public enum SmartcardListError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Opening or reading failed with this errno (ENOENT: pcsc-tools is not installed there).
    case unreadable(path: String, errno: Int32)
    /// Larger than any ATR database (16 MiB).
    case tooLarge(path: String)

    public var description: String {
        switch self {
        case .unreadable(let path, let code):
            "cannot read the ATR database \(path): \(String(cString: strerror(code)))"
        case .tooLarge(let path):
            "\(path) is larger than 16 MiB, too large for an ATR database"
        }
    }
}

extension Substring {
    fileprivate var trimmingTrailingSpaces: Substring {
        var text = self
        while text.last == " " || text.last == "\t" { text = text.dropLast() }
        return text
    }
}
