import CardFlow
import Foundation

/// cardctl's configuration file: `$XDG_CONFIG_HOME/cardflow/cardctl.json`, or
/// `~/.config/cardflow/cardctl.json` (beside the key store). One key for now:
///
/// ```json
/// {"reader": "usb:072F:2200"}
/// ```
///
/// A missing file is no configuration; a file that is not such a JSON object is an error that
/// names the file, rather than settings silently ignored.
struct CardctlConfiguration: Codable, Equatable, Sendable {
    /// The reader selector commands use when `--reader` and `CARDCTL_READER` say nothing.
    var reader: String?

    /// The keys the file may hold.
    static let knownKeys: Set<String> = ["reader"]

    /// The file's path: `$XDG_CONFIG_HOME/cardflow/cardctl.json` (when absolute), else
    /// `$HOME/.config/cardflow/cardctl.json`; nil without either variable.
    static func defaultPath(environment: [String: String]) -> String? {
        if let configuration = environment["XDG_CONFIG_HOME"], configuration.hasPrefix("/") {
            return (configuration as NSString).appendingPathComponent("cardflow/cardctl.json")
        }
        if let home = environment["HOME"], home.hasPrefix("/") {
            return (home as NSString).appendingPathComponent(".config/cardflow/cardctl.json")
        }
        return nil
    }

    /// Parses the file's bytes.
    init(json: Data, path: String) throws(CardctlConfigurationError) {
        do {
            self = try JSONDecoder().decode(CardctlConfiguration.self, from: json)
        } catch let error as ContentError {
            switch error {
            case .unknownKey(let key): throw .unknownKey(path: path, key: key)
            case .badReader: throw .badValue(path: path, key: "reader", expected: Self.readerExpectation)
            }
        } catch DecodingError.typeMismatch(_, let context) where context.codingPath.isEmpty {
            throw .notAnObject(path: path)
        } catch DecodingError.dataCorrupted(let context) {
            throw .notJSON(
                path: path, detail: context.underlyingError?.localizedDescription ?? context.debugDescription)
        } catch {
            throw .notJSON(path: path, detail: String(describing: error))
        }
    }

    init(reader: String? = nil) {
        self.reader = reader
    }

    /// Decodes the file's object: unknown keys and a reader that is not a non-empty string are
    /// refused (a typo must not be a setting silently ignored).
    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: FileKey.self)
        if let unknown = container.allKeys.map(\.stringValue).sorted().first(where: { !Self.knownKeys.contains($0) }) {
            throw ContentError.unknownKey(unknown)
        }
        guard container.contains(.reader) else {
            reader = nil
            return
        }
        // `null`, a number or "" is a mistake, not "no reader".
        guard let text = try? container.decode(String.self, forKey: .reader), !text.isEmpty else {
            throw ContentError.badReader
        }
        reader = text
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: FileKey.self)
        try container.encodeIfPresent(reader, forKey: .reader)
    }

    private static let readerExpectation = "a non-empty reader selector string, like \"usb\" or \"sim:iso7816\""

    /// Any key the file holds, so that unknown ones can be named.
    private struct FileKey: CodingKey {
        static let reader = FileKey(stringValue: "reader")
        let stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    /// What is wrong inside the object (the path is added by ``init(json:path:)``).
    private enum ContentError: Error {
        case unknownKey(String)
        case badReader
    }

    /// The file at `path`, or nil when there is none.
    static func load(path: String) throws(CardctlConfigurationError) -> CardctlConfiguration? {
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        guard let data = FileManager.default.contents(atPath: path) else { throw .unreadable(path: path) }
        return try CardctlConfiguration(json: data, path: path)
    }
}

/// Why cardctl's configuration file was not used.
enum CardctlConfigurationError: CategorizedError, Equatable, CustomStringConvertible {
    /// A configuration file that does not load is the user's to fix.
    var category: ErrorCategory { .usage }

    case unreadable(path: String)
    case notJSON(path: String, detail: String)
    case notAnObject(path: String)
    case unknownKey(path: String, key: String)
    case badValue(path: String, key: String, expected: String)

    var description: String {
        switch self {
        case .unreadable(let path): "cannot read cardctl's configuration file \(path)"
        case .notJSON(let path, let detail): "\(path) is not JSON: \(detail)"
        case .notAnObject(let path): "\(path) must hold a JSON object, like {\"reader\": \"usb\"}"
        case .unknownKey(let path, let key):
            "\(path): unknown key \"\(key)\" (known: \(CardctlConfiguration.knownKeys.sorted().joined(separator: ", ")))"
        case .badValue(let path, let key, let expected): "\(path): \"\(key)\" must be \(expected)"
        }
    }
}
