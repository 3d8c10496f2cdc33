import CardFlowDaemonControl
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
/// The template's kind is one of the daemon's kinds that personalise a card
/// (``DaemonFlow/personalisesCard``).
public struct FleetFlowTemplate: DaemonFlow, Hashable {
    public static let kind = "fleet"
    public static let writesToCard = true

    /// The template's parameters, `kind` included.
    public var parameters: [String: JSONValue]
    /// The kinds a record's merged parameters are decoded with.
    private let flowKinds: DaemonFlowKinds

    /// The template's flow kind.
    public var kind: String { parameters["kind"]?.stringValue ?? "" }

    /// - Parameters:
    ///   - parameters: the flow's parameters, `kind` included.
    ///   - kinds: the daemon's flow kinds; the template's must be one that personalises a card.
    /// - Throws: ``DaemonFlowError/invalidFleetRecord(_:)`` for a kind that is not one of them.
    public init(parameters: [String: JSONValue], kinds: DaemonFlowKinds) throws(DaemonFlowError) {
        let personalising = kinds.kinds.filter(\.personalisesCard).map(\.name)
        guard let kind = parameters["kind"]?.stringValue, personalising.contains(kind) else {
            throw .invalidFleetRecord(
                "a fleet rule's flow kind is one of \(personalising.sorted().joined(separator: ", "))")
        }
        self.parameters = parameters
        self.flowKinds = kinds
    }

    enum CodingKeys: String, CodingKey { case flow }

    /// Decodes with the ``DaemonFlowKinds`` in the decoder's `userInfo`.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        guard case .object(let parameters) = try container.decode(JSONValue.self, forKey: .flow) else {
            throw DecodingError.dataCorruptedError(forKey: .flow, in: container, debugDescription: "an object")
        }
        guard let kinds = DaemonFlowKinds.of(decoder) else {
            throw DecodingError.dataCorruptedError(
                forKey: .flow, in: container, debugDescription: "no flow kinds were given to the decoder")
        }
        do {
            try self.init(parameters: parameters, kinds: kinds)
        } catch {
            throw DecodingError.dataCorruptedError(forKey: .flow, in: container, debugDescription: error.description)
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(JSONValue.object(parameters), forKey: .flow)
    }

    public static func == (left: FleetFlowTemplate, right: FleetFlowTemplate) -> Bool {
        left.parameters == right.parameters
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(parameters)
    }

    /// A fleet flow runs on the card a record was claimed for, not on request.
    public func job(_ context: DaemonFlowContext) async throws -> FlowJob {
        throw DaemonFlowError.fleetFlowNeedsClaim
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
            return try flowKinds.decoder().decode(FlowSpecification.self, from: data)
        } catch let error as DecodingError {
            throw .invalidFleetRecord(DaemonConfigurationError.describe(error))
        } catch {
            throw .invalidFleetRecord(String(describing: error))
        }
    }
}

extension FlowSpecification {
    /// Personalise the card with a record claimed from the fleet's batch (``FleetFlowTemplate``).
    public static func fleet(_ template: FleetFlowTemplate) -> FlowSpecification {
        FlowSpecification(template)
    }
}
