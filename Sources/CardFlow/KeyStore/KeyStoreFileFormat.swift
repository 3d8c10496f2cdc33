#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The JSON layout of a ``FileKeyStore`` file (format 1):
///
/// ```json
/// {
///   "format" : 1,
///   "keys" : [ { "algorithm" : "aes128", "key" : "00112233445566778899AABBCCDDEEFF", "slot" : 0, "version" : 2 } ],
///   "secrets" : [ { "name" : "ton.hmac.04A1B2C3", "value" : "0011…" } ]
/// }
/// ```
///
/// Keys are in slot order and secrets in name order, so equal contents give equal files.
/// Decoding checks everything a ``KeyStoreContents`` promises (slots in range, key lengths,
/// secret names, no duplicates) and reports problems without quoting key material.
enum KeyStoreFileFormat {
    static let currentVersion = 1

    private struct Document: Codable {
        var format: Int
        var keys: [KeyEntry]
        var secrets: [SecretEntry]
    }

    private struct KeyEntry: Codable {
        var slot: Int
        var algorithm: String
        var version: Int
        var key: String
    }

    private struct SecretEntry: Codable {
        var name: String
        var value: String
    }

    private struct FormatOnly: Decodable {
        var format: Int
    }

    static func encode(_ contents: KeyStoreContents) -> [UInt8] {
        let document = Document(
            format: currentVersion,
            keys: contents.keys.sorted { $0.key < $1.key }.map { slot, key in
                KeyEntry(
                    slot: slot.number, algorithm: key.algorithm.rawValue, version: Int(key.version),
                    key: key.bytes.hexString)
            },
            secrets: contents.secrets.sorted { $0.key < $1.key }.map { name, secret in
                SecretEntry(name: name, value: secret.bytes.hexString)
            })
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        // Strings, integers and arrays of them always encode.
        let data = (try? encoder.encode(document)) ?? Data()
        return Array(data) + [UInt8(ascii: "\n")]
    }

    /// Turns file bytes into contents.
    ///
    /// - Throws: ``KeyStoreError/corruptFile(path:reason:)`` or
    ///   ``KeyStoreError/unsupportedFormatVersion(path:version:)``.
    static func decode(_ bytes: [UInt8], path: String) throws(KeyStoreError) -> KeyStoreContents {
        func corrupt(_ reason: String) -> KeyStoreError { .corruptFile(path: path, reason: reason) }

        guard bytes.contains(where: { !Self.isJSONWhitespace($0) }) else { throw corrupt("the file is empty") }
        let data = Data(bytes)
        let decoder = JSONDecoder()
        let format: Int
        do {
            format = try decoder.decode(FormatOnly.self, from: data).format
        } catch {
            throw corrupt(reason(for: error))
        }
        guard format <= currentVersion else { throw .unsupportedFormatVersion(path: path, version: format) }
        guard format == currentVersion else { throw corrupt("unknown format \(format)") }
        let document: Document
        do {
            document = try decoder.decode(Document.self, from: data)
        } catch {
            throw corrupt(reason(for: error))
        }

        var contents = KeyStoreContents()
        for (index, entry) in document.keys.enumerated() {
            let at = "keys[\(index)]"
            guard let slot = try? KeySlot(entry.slot) else {
                throw corrupt("\(at): slot \(entry.slot) is outside 0...15")
            }
            guard contents.keys[slot] == nil else { throw corrupt("\(at): slot \(entry.slot) appears twice") }
            guard let algorithm = SymmetricKeyAlgorithm(rawValue: entry.algorithm) else {
                throw corrupt("\(at): unknown algorithm \(String(reflecting: String(entry.algorithm.prefix(20))))")
            }
            guard let version = UInt8(exactly: entry.version) else {
                throw corrupt("\(at): key version \(entry.version) is outside 0...255")
            }
            guard let keyBytes = try? [UInt8](hex: entry.key) else { throw corrupt("\(at): key is not hex") }
            guard let key = try? StoredKey(algorithm: algorithm, bytes: keyBytes, version: version) else {
                throw corrupt(
                    "\(at): \(algorithm.displayName) key has \(keyBytes.count) bytes, not \(algorithm.keyLength)")
            }
            contents.keys[slot] = key
        }
        for (index, entry) in document.secrets.enumerated() {
            let at = "secrets[\(index)]"
            guard SecretNameRule.isValid(entry.name) else { throw corrupt("\(at): invalid secret name") }
            guard contents.secrets[entry.name] == nil else {
                throw corrupt("\(at): secret \(String(reflecting: entry.name)) appears twice")
            }
            guard let valueBytes = try? [UInt8](hex: entry.value) else { throw corrupt("\(at): value is not hex") }
            guard let secret = try? SecretBytes(valueBytes) else { throw corrupt("\(at): value is empty") }
            contents.secrets[entry.name] = secret
        }
        return contents
    }

    private static func isJSONWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }

    /// A short reason for a decoding failure that names where, never what (the text around a
    /// syntax error could be key material).
    private static func reason(for error: any Error) -> String {
        guard let error = error as? DecodingError else { return "not valid JSON" }
        func place(_ path: [any CodingKey]) -> String {
            guard !path.isEmpty else { return "the top level" }
            let text = path.map { key in key.intValue.map { "[\($0)]" } ?? ".\(key.stringValue)" }.joined()
            return text.hasPrefix(".") ? String(text.dropFirst()) : text
        }
        switch error {
        case .keyNotFound(let key, let context):
            return "\(String(reflecting: key.stringValue)) missing at \(place(context.codingPath))"
        case .typeMismatch(_, let context), .valueNotFound(_, let context):
            return "wrong type of value at \(place(context.codingPath))"
        case .dataCorrupted(let context):
            return context.codingPath.isEmpty ? "not valid JSON" : "invalid value at \(place(context.codingPath))"
        @unknown default:
            return "not valid JSON"
        }
    }
}
