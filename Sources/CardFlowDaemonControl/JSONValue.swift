import Foundation

/// A JSON value, for control-socket messages whose shape depends on the request: every line on
/// the socket is one, read and written with `JSONDecoder`/`JSONEncoder`.
///
/// ```swift
/// let request: JSONValue = ["op": "job", "job": 12]
/// let line = request.jsonLine()            // {"job":12,"op":"job"}
/// let state = answer["result"]?["state"]?.stringValue
/// ```
public enum JSONValue: Sendable, Hashable, Codable, ExpressibleByStringLiteral, ExpressibleByDictionaryLiteral,
    ExpressibleByArrayLiteral
{
    /// `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// A number (integers up to 10^15 are written without a fraction).
    case number(Double)
    /// A string.
    case string(String)
    /// An array.
    case array([JSONValue])
    /// An object.
    case object([String: JSONValue])

    /// A string value.
    public init(stringLiteral value: String) { self = .string(value) }
    /// An object; of repeated keys the last wins.
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self = .object(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }
    /// An array value.
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }

    /// Decodes any JSON value.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSONValue].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: JSONValue].self))
        }
    }

    /// Encodes the value; whole numbers as integers.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .number(let value):
            if value == value.rounded(), abs(value) < 1e15 {
                try container.encode(Int64(value))
            } else {
                try container.encode(value)
            }
        case .string(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        }
    }

    /// An object's field; nil for a missing key or a value that is not an object.
    public subscript(key: String) -> JSONValue? {
        if case .object(let fields) = self { return fields[key] }
        return nil
    }

    /// The string, when the value is one.
    public var stringValue: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    /// The number as an integer, when it is a whole number below 10^15.
    public var intValue: Int? {
        if case .number(let value) = self, value == value.rounded(), abs(value) < 1e15 { return Int(value) }
        return nil
    }

    /// Round-trips an `Encodable` value through JSON.
    public init(encoding value: some Encodable) throws {
        let data = try JSONEncoder().encode(value)
        self = try JSONDecoder().decode(JSONValue.self, from: data)
    }

    /// One line of compact JSON with sorted keys.
    public func jsonLine() -> String {
        text(formatting: [.sortedKeys, .withoutEscapingSlashes])
    }

    /// Indented JSON with sorted keys, for people (`cardctl --json`).
    public func prettyJSON() -> String {
        text(formatting: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])
    }

    private func text(formatting: JSONEncoder.OutputFormatting) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = formatting
        return (try? String(decoding: encoder.encode(self), as: UTF8.self)) ?? "null"
    }
}
