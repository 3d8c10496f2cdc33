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
struct CardctlConfiguration: Equatable, Sendable {
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
        let object: Any
        do {
            object = try JSONSerialization.jsonObject(with: json)
        } catch {
            throw .notJSON(path: path, detail: error.localizedDescription)
        }
        guard let fields = object as? [String: Any] else { throw .notAnObject(path: path) }
        if let unknown = fields.keys.sorted().first(where: { !Self.knownKeys.contains($0) }) {
            throw .unknownKey(path: path, key: unknown)
        }
        switch fields["reader"] {
        case nil: reader = nil
        case let text as String where !text.isEmpty: reader = text
        default: throw .badValue(path: path, key: "reader", expected: "a non-empty reader selector string, like \"usb\" or \"sim:iso7816\"")
        }
    }

    init(reader: String? = nil) {
        self.reader = reader
    }

    /// The file at `path`, or nil when there is none.
    static func load(path: String) throws(CardctlConfigurationError) -> CardctlConfiguration? {
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        guard let data = FileManager.default.contents(atPath: path) else { throw .unreadable(path: path) }
        return try CardctlConfiguration(json: data, path: path)
    }
}

/// Why cardctl's configuration file was not used.
enum CardctlConfigurationError: Error, Equatable, CustomStringConvertible {
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
