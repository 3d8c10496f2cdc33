import Foundation
import Logging

/// swift-log handler writing one JSON object per line to stderr, for journald and log shippers:
/// `{"ts":…,"level":…,"label":…,"message":…, metadata…}`.
struct JSONLineLogHandler: LogHandler {
    let label: String
    var logLevel: Logger.Level = .info
    var metadata: Logger.Metadata = [:]

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        var fields: [String: String] = [:]
        for (key, value) in metadata.merging(event.metadata ?? [:], uniquingKeysWith: { _, new in new }) {
            fields[key] = "\(value)"
        }
        fields["ts"] = ISO8601DateFormatter().string(from: Date())
        fields["level"] = event.level.rawValue
        fields["label"] = label
        fields["message"] = "\(event.message)"
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard var data = try? encoder.encode(fields) else { return }
        data.append(UInt8(ascii: "\n"))
        FileHandle.standardError.write(data)
    }
}
