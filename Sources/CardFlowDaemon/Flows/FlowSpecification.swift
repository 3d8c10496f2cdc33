import Foundation

/// A flow a rule or a control request names: `{"kind": "...", ...parameters}`, one of the
/// ``DaemonFlowKinds`` the daemon was given.
///
/// Keys are never inline: flows that need one name a key-store slot.
///
/// ```swift
/// let specification = try DaemonFlowKinds.standard.decoder()
///     .decode(FlowSpecification.self, from: Data(#"{"kind": "ndef-read"}"#.utf8))
/// print(specification.kind)   // ndef-read
/// ```
public struct FlowSpecification: Sendable, Hashable, Codable {
    /// The flow's parameters, of its kind's type.
    public let flow: any DaemonFlow

    /// A specification of this flow.
    public init(_ flow: some DaemonFlow) {
        self.flow = flow
    }

    /// The name the job log and progress show.
    public var kind: String { type(of: flow).kind }

    /// Whether running it changes the card.
    public var writesToCard: Bool { type(of: flow).writesToCard }

    /// The flow as a kind's type, nil when it is of another kind.
    public func flow<Flow: DaemonFlow>(as type: Flow.Type) -> Flow? {
        flow as? Flow
    }

    enum CodingKeys: String, CodingKey { case kind }

    /// Decodes the kind the `kind` key names, from the ``DaemonFlowKinds`` in the decoder's
    /// `userInfo` (``DaemonFlowKinds/decoder()``).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let name = try container.decode(String.self, forKey: .kind)
        guard let kinds = DaemonFlowKinds.of(decoder) else {
            throw DecodingError.dataCorruptedError(
                forKey: .kind, in: container,
                debugDescription: "no flow kinds were given to the decoder (use DaemonFlowKinds.decoder())")
        }
        guard let kind = kinds.kind(named: name) else {
            throw DecodingError.dataCorruptedError(
                forKey: .kind, in: container, debugDescription: "unknown flow kind '\(name)'; known: \(kinds.names)")
        }
        flow = try kind.decode(decoder)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(kind, forKey: .kind)
        try flow.encode(to: encoder)
    }

    /// Its JSON with sorted keys: what equality and hashing compare (the kinds' types differ).
    private var canonical: Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return (try? encoder.encode(self)) ?? Data(kind.utf8)
    }

    public static func == (left: FlowSpecification, right: FlowSpecification) -> Bool {
        left.kind == right.kind && left.canonical == right.canonical
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(canonical)
    }
}
