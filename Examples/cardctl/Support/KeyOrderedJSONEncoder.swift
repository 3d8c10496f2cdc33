import Foundation

/// Encodes a value as one line of compact JSON whose object keys come in the order the value
/// encodes them (declaration order for synthesized `Encodable`).
///
/// Foundation's `JSONEncoder` on Linux writes keys in hash order unless told to sort them, and
/// several cardctl outputs (`{"ok":true,…,"events":[…]}`, `{"event":…}`) have put keys in their
/// own order since before they were `Encodable`. Strings are escaped by `JSONEncoder` itself;
/// numbers print as Swift prints them (`0.5`, `1.0`), as they always have.
struct KeyOrderedJSONEncoder {
    func encode(_ value: some Encodable) throws -> String {
        let root = JSONNode()
        try value.encode(to: NodeEncoder(node: root, codingPath: []))
        return try root.text()
    }
}

/// One JSON value while it is being built: a finished scalar, or an array or object whose
/// elements are still being encoded (nested containers write into them after they are added).
private final class JSONNode {
    enum Content {
        case scalar(String)
        case array([JSONNode])
        case object([(key: String, value: JSONNode)])
    }

    var content = Content.scalar("null")

    func text() throws -> String {
        switch content {
        case .scalar(let text): text
        case .array(let elements): try "[" + elements.map { try $0.text() }.joined(separator: ",") + "]"
        case .object(let members):
            try "{" + members.map { try JSONNode.string($0.key) + ":" + $0.value.text() }.joined(separator: ",") + "}"
        }
    }

    /// Appends a new element to this array node and returns it.
    func appendElement() -> JSONNode {
        let element = JSONNode()
        if case .array(let elements) = content { content = .array(elements + [element]) }
        return element
    }

    /// Appends a new member to this object node and returns its value.
    func appendMember(_ key: String) -> JSONNode {
        let value = JSONNode()
        if case .object(let members) = content { content = .object(members + [(key, value)]) }
        return value
    }

    /// A JSON string literal, escaped as `JSONEncoder` escapes it (slashes left alone).
    static func string(_ text: String) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        return String(decoding: try encoder.encode(text), as: UTF8.self)
    }
}

private struct NodeEncoder: Encoder {
    let node: JSONNode
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        if case .object = node.content {} else { node.content = .object([]) }
        return KeyedEncodingContainer(KeyedContainer<Key>(node: node, codingPath: codingPath))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        if case .array = node.content {} else { node.content = .array([]) }
        return UnkeyedContainer(node: node, codingPath: codingPath)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        SingleValueContainer(node: node, codingPath: codingPath)
    }
}

private struct KeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let node: JSONNode
    let codingPath: [any CodingKey]

    private func encoder(for key: Key) -> NodeEncoder {
        NodeEncoder(node: node.appendMember(key.stringValue), codingPath: codingPath + [key])
    }

    mutating func encodeNil(forKey key: Key) throws {
        var container = encoder(for: key).singleValueContainer()
        try container.encodeNil()
    }
    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws { try value.encode(to: encoder(for: key)) }
    mutating func encode(_ value: Bool, forKey key: Key) throws { try value.encode(to: encoder(for: key)) }
    mutating func encode(_ value: String, forKey key: Key) throws { try value.encode(to: encoder(for: key)) }
    mutating func encode(_ value: Double, forKey key: Key) throws { try value.encode(to: encoder(for: key)) }
    mutating func encode(_ value: Float, forKey key: Key) throws { try value.encode(to: encoder(for: key)) }
    mutating func encode(_ value: Int, forKey key: Key) throws { try value.encode(to: encoder(for: key)) }
    mutating func encode(_ value: Int8, forKey key: Key) throws { try value.encode(to: encoder(for: key)) }
    mutating func encode(_ value: Int16, forKey key: Key) throws { try value.encode(to: encoder(for: key)) }
    mutating func encode(_ value: Int32, forKey key: Key) throws { try value.encode(to: encoder(for: key)) }
    mutating func encode(_ value: Int64, forKey key: Key) throws { try value.encode(to: encoder(for: key)) }
    mutating func encode(_ value: UInt, forKey key: Key) throws { try value.encode(to: encoder(for: key)) }
    mutating func encode(_ value: UInt8, forKey key: Key) throws { try value.encode(to: encoder(for: key)) }
    mutating func encode(_ value: UInt16, forKey key: Key) throws { try value.encode(to: encoder(for: key)) }
    mutating func encode(_ value: UInt32, forKey key: Key) throws { try value.encode(to: encoder(for: key)) }
    mutating func encode(_ value: UInt64, forKey key: Key) throws { try value.encode(to: encoder(for: key)) }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key)
        -> KeyedEncodingContainer<NestedKey>
    {
        encoder(for: key).container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        encoder(for: key).unkeyedContainer()
    }

    mutating func superEncoder() -> any Encoder {
        NodeEncoder(node: node.appendMember("super"), codingPath: codingPath)
    }

    mutating func superEncoder(forKey key: Key) -> any Encoder { encoder(for: key) }
}

private struct UnkeyedContainer: UnkeyedEncodingContainer {
    let node: JSONNode
    let codingPath: [any CodingKey]
    private(set) var count = 0

    init(node: JSONNode, codingPath: [any CodingKey]) {
        self.node = node
        self.codingPath = codingPath
    }

    private mutating func nextEncoder() -> NodeEncoder {
        count += 1
        return NodeEncoder(node: node.appendElement(), codingPath: codingPath)
    }

    mutating func encodeNil() throws {
        var container = nextEncoder().singleValueContainer()
        try container.encodeNil()
    }
    mutating func encode<T: Encodable>(_ value: T) throws { try value.encode(to: nextEncoder()) }
    mutating func encode(_ value: Bool) throws { try value.encode(to: nextEncoder()) }
    mutating func encode(_ value: String) throws { try value.encode(to: nextEncoder()) }
    mutating func encode(_ value: Double) throws { try value.encode(to: nextEncoder()) }
    mutating func encode(_ value: Float) throws { try value.encode(to: nextEncoder()) }
    mutating func encode(_ value: Int) throws { try value.encode(to: nextEncoder()) }
    mutating func encode(_ value: Int8) throws { try value.encode(to: nextEncoder()) }
    mutating func encode(_ value: Int16) throws { try value.encode(to: nextEncoder()) }
    mutating func encode(_ value: Int32) throws { try value.encode(to: nextEncoder()) }
    mutating func encode(_ value: Int64) throws { try value.encode(to: nextEncoder()) }
    mutating func encode(_ value: UInt) throws { try value.encode(to: nextEncoder()) }
    mutating func encode(_ value: UInt8) throws { try value.encode(to: nextEncoder()) }
    mutating func encode(_ value: UInt16) throws { try value.encode(to: nextEncoder()) }
    mutating func encode(_ value: UInt32) throws { try value.encode(to: nextEncoder()) }
    mutating func encode(_ value: UInt64) throws { try value.encode(to: nextEncoder()) }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type)
        -> KeyedEncodingContainer<NestedKey>
    {
        nextEncoder().container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer { nextEncoder().unkeyedContainer() }

    mutating func superEncoder() -> any Encoder { nextEncoder() }
}

/// Where scalars are written: the text of each, as the hand-built outputs printed it.
private struct SingleValueContainer: SingleValueEncodingContainer {
    let node: JSONNode
    let codingPath: [any CodingKey]

    private func write(_ text: String) { node.content = .scalar(text) }

    private func write(_ number: some BinaryFloatingPoint & LosslessStringConvertible) throws {
        guard number.isFinite else {
            throw EncodingError.invalidValue(
                number, .init(codingPath: codingPath, debugDescription: "JSON has no \(number)"))
        }
        write(number.description)
    }

    mutating func encodeNil() throws { write("null") }
    mutating func encode<T: Encodable>(_ value: T) throws {
        try value.encode(to: NodeEncoder(node: node, codingPath: codingPath))
    }
    mutating func encode(_ value: Bool) throws { write(value ? "true" : "false") }
    mutating func encode(_ value: String) throws { write(try JSONNode.string(value)) }
    mutating func encode(_ value: Double) throws { try write(value) }
    mutating func encode(_ value: Float) throws { try write(value) }
    mutating func encode(_ value: Int) throws { write(String(value)) }
    mutating func encode(_ value: Int8) throws { write(String(value)) }
    mutating func encode(_ value: Int16) throws { write(String(value)) }
    mutating func encode(_ value: Int32) throws { write(String(value)) }
    mutating func encode(_ value: Int64) throws { write(String(value)) }
    mutating func encode(_ value: UInt) throws { write(String(value)) }
    mutating func encode(_ value: UInt8) throws { write(String(value)) }
    mutating func encode(_ value: UInt16) throws { write(String(value)) }
    mutating func encode(_ value: UInt32) throws { write(String(value)) }
    mutating func encode(_ value: UInt64) throws { write(String(value)) }
}
