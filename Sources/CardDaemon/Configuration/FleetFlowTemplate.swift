import CardDaemonControl
import Foundation

/// The flow of a `fleet` rule: the parameters every card of the batch shares, which each
/// claimed record completes or overrides with its own.
///
/// ```json
/// {"kind": "fleet",
///  "flow": {"kind": "desfire-provision", "aid": "F01020", "file": 1, "size": 64, "comm": "enc",
///           "keySlot": 2, "diversify": true}}
/// ```
///
/// with a record `{"ref": "EMP-0001", "flow": {"text": "Alice Example"}}` runs a
/// `desfire-provision` with `text` "Alice Example" and the card's AN10922-diversified key.
public struct FleetFlowTemplate: Sendable, Hashable, Codable {
    /// The flow kinds a record can drive: those that personalise a card.
    public static let kinds: Set<String> = ["desfire-provision", "ndef-write", "ton-activate", "ntag424-sun"]

    /// The template's parameters, `kind` included.
    public var parameters: [String: JSONValue]

    public var kind: String { parameters["kind"]?.stringValue ?? "" }

    public init(parameters: [String: JSONValue]) throws(DaemonFlowError) {
        guard let kind = parameters["kind"]?.stringValue, Self.kinds.contains(kind) else {
            throw .invalidFleetRecord(
                "a fleet rule's flow kind is one of \(Self.kinds.sorted().joined(separator: ", "))")
        }
        self.parameters = parameters
    }

    enum CodingKeys: String, CodingKey { case flow }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        guard case .object(let parameters) = try container.decode(JSONValue.self, forKey: .flow) else {
            throw DecodingError.dataCorruptedError(forKey: .flow, in: container, debugDescription: "an object")
        }
        do {
            try self.init(parameters: parameters)
        } catch {
            throw DecodingError.dataCorruptedError(forKey: .flow, in: container, debugDescription: error.description)
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(JSONValue.object(parameters), forKey: .flow)
    }

    /// The flow for one record: its parameters (a JSON object) over the template's; the kind
    /// stays the template's.
    ///
    /// - Throws: ``DaemonFlowError/invalidFleetRecord(_:)`` when the record is not an object or
    ///   the merged parameters are not a valid flow of the kind.
    public func specification(for record: [UInt8]) throws(DaemonFlowError) -> FlowSpecification {
        guard case .object(let values)? = try? JSONDecoder().decode(JSONValue.self, from: Data(record)) else {
            throw .invalidFleetRecord("the record's parameters are not a JSON object")
        }
        var merged = parameters
        for (name, value) in values where name != "kind" { merged[name] = value }
        do {
            let data = try JSONEncoder().encode(JSONValue.object(merged))
            return try JSONDecoder().decode(FlowSpecification.self, from: data)
        } catch let error as DecodingError {
            throw .invalidFleetRecord(DaemonConfigurationError.describe(error))
        } catch {
            throw .invalidFleetRecord(String(describing: error))
        }
    }
}
