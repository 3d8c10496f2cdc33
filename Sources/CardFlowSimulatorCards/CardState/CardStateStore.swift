import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Saves and loads the persistent state of a card model as JSON at a path, so that
/// consecutive CLI invocations see the same card.
///
/// The file is `{"format": 1, "kind": "<card kind>", "card": {…}}`. Writes are atomic (a
/// temporary file in the same directory, synced, then renamed over the target) and the file
/// mode is 0600. A file that is unreadable, corrupt, of an unknown format or of another card
/// kind makes ``load(_:)`` and ``save(_:)`` throw a ``CardStateError`` and is left untouched;
/// to replace it on purpose, ``remove()`` it first.
public struct CardStateStore: Sendable, Hashable {
    /// The state file format written by this version.
    public static let formatVersion = 1

    /// Path of the state file.
    public let path: String

    /// Creates a store for the state file at `path`.
    public init(path: String) {
        self.path = path
    }

    /// Whether a file (of any content) exists at ``path``.
    public var exists: Bool {
        FileManager.default.fileExists(atPath: path)
    }

    /// The card kind recorded in the state file.
    ///
    /// - Throws: ``CardStateError/notFound(path:)``, ``CardStateError/unreadable(path:reason:)``,
    ///   ``CardStateError/corrupt(path:reason:)`` or ``CardStateError/unsupportedFormat(path:version:)``.
    public func storedKind() throws(CardStateError) -> String {
        try header(of: try readFile()).kind
    }

    /// Loads a card of type `Card` from the state file; its volatile state is as after power-on.
    ///
    /// - Throws: a ``CardStateError``; the file is never modified.
    public func load<Card: PersistentVirtualCard>(_ type: Card.Type = Card.self) throws(CardStateError) -> Card {
        let data = try readFile()
        let header = try header(of: data)
        guard header.kind == Card.persistentKind else {
            throw .wrongKind(path: path, expected: Card.persistentKind, found: header.kind)
        }
        let envelope: CardStateEnvelope<Card>
        do {
            envelope = try JSONDecoder().decode(CardStateEnvelope<Card>.self, from: data)
        } catch {
            throw .corrupt(path: path, reason: Self.describe(error))
        }
        guard envelope.card.kind == header.kind else {
            throw .wrongKind(path: path, expected: header.kind, found: envelope.card.kind)
        }
        return envelope.card
    }

    /// Saves the persistent state of `card`, atomically, with file mode 0600.
    ///
    /// An existing file is only replaced if it is a valid state of the same card kind.
    ///
    /// - Throws: the ``CardStateError`` that loading the existing file gives (it is then left
    ///   as is), ``CardStateError/encodingFailed(reason:)`` or
    ///   ``CardStateError/writeFailed(path:reason:)``.
    public func save<Card: PersistentVirtualCard>(_ card: Card) throws(CardStateError) {
        do {
            _ = try load(Card.self)
        } catch .notFound {
            // Nothing to protect.
        }
        let data: Data
        do {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            data = try encoder.encode(
                CardStateEnvelope(format: Self.formatVersion, kind: Card.persistentKind, card: card))
        } catch {
            throw .encodingFailed(reason: Self.describe(error))
        }
        try writeAtomically(data)
    }

    /// Deletes the state file (whatever it contains). Missing files are not an error.
    ///
    /// - Throws: ``CardStateError/writeFailed(path:reason:)``.
    public func remove() throws(CardStateError) {
        guard unlink(path) == 0 || errno == ENOENT else {
            throw .writeFailed(path: path, reason: Self.errnoText())
        }
    }

    // MARK: - Internals

    private func readFile() throws(CardStateError) -> Data {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw .notFound(path: path)
        }
        guard !isDirectory.boolValue else { throw .unreadable(path: path, reason: "is a directory") }
        do {
            return try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw .unreadable(path: path, reason: Self.describe(error))
        }
    }

    private func header(of data: Data) throws(CardStateError) -> CardStateHeader {
        let header: CardStateHeader
        do {
            header = try JSONDecoder().decode(CardStateHeader.self, from: data)
        } catch {
            throw .corrupt(path: path, reason: Self.describe(error))
        }
        guard header.format == Self.formatVersion else {
            throw .unsupportedFormat(path: path, version: header.format)
        }
        return header
    }

    private func writeAtomically(_ data: Data) throws(CardStateError) {
        let url = URL(fileURLWithPath: path)
        let directory = url.deletingLastPathComponent().path
        let temporary = directory + "/." + url.lastPathComponent + ".tmp-" + UUID().uuidString
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw .writeFailed(path: path, reason: "create \(temporary): \(Self.errnoText())") }
        var failure: String?
        if fchmod(fd, 0o600) != 0 { failure = "chmod: \(Self.errnoText())" }
        if failure == nil {
            failure = data.withUnsafeBytes { (buffer: UnsafeRawBufferPointer) -> String? in
                var offset = 0
                while offset < buffer.count {
                    let written = write(fd, buffer.baseAddress! + offset, buffer.count - offset)
                    if written < 0 {
                        if errno == EINTR { continue }
                        return "write: \(Self.errnoText())"
                    }
                    offset += written
                }
                return nil
            }
        }
        if failure == nil, fsync(fd) != 0 { failure = "fsync: \(Self.errnoText())" }
        if close(fd) != 0, failure == nil { failure = "close: \(Self.errnoText())" }
        if failure == nil, rename(temporary, path) != 0 { failure = "rename: \(Self.errnoText())" }
        if let failure {
            unlink(temporary)
            throw .writeFailed(path: path, reason: failure)
        }
        // Make the rename durable; failure to sync the directory does not undo the write.
        let directoryFD = open(directory, O_RDONLY | O_CLOEXEC)
        if directoryFD >= 0 {
            _ = fsync(directoryFD)
            _ = close(directoryFD)
        }
    }

    private static func errnoText() -> String {
        String(cString: strerror(errno))
    }

    private static func describe(_ error: any Error) -> String {
        switch error {
        case DecodingError.dataCorrupted(let context),
            DecodingError.keyNotFound(_, let context),
            DecodingError.typeMismatch(_, let context),
            DecodingError.valueNotFound(_, let context):
            let path = context.codingPath.map(\.stringValue).joined(separator: ".")
            return path.isEmpty ? context.debugDescription : "\(path): \(context.debugDescription)"
        default:
            return String(describing: error)
        }
    }
}
