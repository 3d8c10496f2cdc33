import CardFlow

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Replay protection for SUN messages: a message is accepted only when its read counter is
/// above the last one accepted for its UID, and that counter is stored (in a file, when one is
/// given) before the message counts as accepted.
///
/// The SDMMAC proves a tag made the message, not that it is new: a URL copied from a tap verifies
/// again and again. The tag's SDMReadCtr only grows, so a counter at or below the last accepted
/// one is a replay (or a tap seen out of order).
///
/// ```swift
/// let guard = try NTAG424SUNReplayGuard(path: "/var/lib/app/sun-counters.json")
/// let message = try verifier.verify(try NTAG424SUNURLParameters(url: url))
/// switch try await guard.accept(message) {
/// case .fresh: grant()
/// case .replayed(let counter, let last): refuse("counter \(counter) ≤ \(last)")
/// }
/// ```
///
/// One process per file: writers in several processes would each keep their own view.
public actor NTAG424SUNReplayGuard {
    /// What ``accept(_:)`` decided.
    public enum Verdict: Sendable, Hashable {
        /// New: the counter is above the last one accepted (nil: the first from this UID).
        case fresh(previous: UInt32?)
        /// Seen before: the counter is not above `last`.
        case replayed(counter: UInt32, last: UInt32)
    }

    /// The file format's identifier.
    public static let format = "cardflow-sun-counters/1"
    /// A counter file larger than this is refused unread (a few million tags fit).
    static let maximumFileSize = 256 << 20

    private let path: String?
    private var counters: [String: UInt32]

    /// A guard that remembers in memory only.
    public init() {
        path = nil
        counters = [:]
    }

    /// A guard whose counters live in the JSON file at `path` (created on the first accepted
    /// message; written atomically on each).
    ///
    /// - Throws: ``NTAG424SUNReplayError/unreadable(path:reason:)`` for a file that is not a
    ///   counter file.
    public init(path: String) throws(NTAG424SUNReplayError) {
        self.path = path
        counters = try Self.load(path)
    }

    /// The last accepted counter of `uid`.
    public func lastCounter(uid: [UInt8]) -> UInt32? { counters[Self.key(uid)] }

    /// Accepts `message` when it is fresh, storing its counter first.
    ///
    /// - Throws: ``NTAG424SUNReplayError/notCounted`` for a message without UID or read counter
    ///   (a mirror without them cannot be checked), ``NTAG424SUNReplayError/unwritable(path:reason:)``
    ///   when the counter cannot be stored (the message is then not accepted).
    public func accept(_ message: NTAG424SUNMessage) throws(NTAG424SUNReplayError) -> Verdict {
        guard let uid = message.uid, let counter = message.readCounter else { throw .notCounted }
        let key = Self.key(uid)
        let last = counters[key]
        if let last, counter <= last { return .replayed(counter: counter, last: last) }
        var next = counters
        next[key] = counter
        if let path { try Self.save(next, to: path) }
        counters = next
        return .fresh(previous: last)
    }

    private static func key(_ uid: [UInt8]) -> String { uid.hexString }

    private struct File: Codable {
        var format: String
        var counters: [String: UInt32]
    }

    private static func load(_ path: String) throws(NTAG424SUNReplayError) -> [String: UInt32] {
        let url = URL(fileURLWithPath: path)
        let data: Data
        do {
            let size = try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int ?? 0
            guard size <= maximumFileSize else {
                throw NTAG424SUNReplayError.unreadable(path: path, reason: "larger than \(maximumFileSize) bytes")
            }
            data = try Data(contentsOf: url)
        } catch let error as NTAG424SUNReplayError {
            throw error
        } catch {
            guard FileManager.default.fileExists(atPath: path) else { return [:] }
            throw .unreadable(path: path, reason: "\(error)")
        }
        let file: File
        do { file = try JSONDecoder().decode(File.self, from: data) } catch {
            throw .unreadable(path: path, reason: "not a SUN counter file: \(error)")
        }
        guard file.format == format else {
            throw .unreadable(path: path, reason: "format \(file.format), expected \(format)")
        }
        return file.counters
    }

    private static func save(_ counters: [String: UInt32], to path: String) throws(NTAG424SUNReplayError) {
        do {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            let data = try encoder.encode(File(format: format, counters: counters))
            try data.write(to: URL(fileURLWithPath: path), options: .atomic)
        } catch {
            throw .unwritable(path: path, reason: "\(error)")
        }
    }
}

/// Why the replay guard could not decide.
public enum NTAG424SUNReplayError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The message mirrors no UID or no read counter: nothing to compare.
    case notCounted
    /// The counter file exists and is not one.
    case unreadable(path: String, reason: String)
    /// The counter could not be stored; the message was not accepted.
    case unwritable(path: String, reason: String)

    public var description: String {
        switch self {
        case .notCounted: "the SUN message mirrors no UID or read counter: replays cannot be told"
        case .unreadable(let path, let reason): "SUN counter file \(path): \(reason)"
        case .unwritable(let path, let reason): "cannot store the SUN counter in \(path): \(reason)"
        }
    }
}
