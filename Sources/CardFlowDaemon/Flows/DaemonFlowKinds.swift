import Foundation

/// One ``DaemonFlow`` type as an entry of ``DaemonFlowKinds``.
public struct DaemonFlowKind: Sendable {
    /// The `kind` name.
    public let name: String
    /// Whether running it changes the card.
    public let writesToCard: Bool
    /// Whether a fleet record can drive it.
    public let personalisesCard: Bool
    let decode: @Sendable (any Decoder) throws -> any DaemonFlow

    /// The kind of `flow`.
    public init<Flow: DaemonFlow>(_ flow: Flow.Type) {
        name = Flow.kind
        writesToCard = Flow.writesToCard
        personalisesCard = Flow.personalisesCard
        decode = { decoder in try Flow(from: decoder) }
    }
}

/// The flow kinds a daemon runs: what a configuration's rules, a control request's `flow` and a
/// fleet record may name. The program gives the list (cardd gives
/// `DaemonFlowKinds.standard` of CardFlowDaemonFlows); `fleet` (``FleetFlowTemplate``) is always
/// there. Decoding a ``FlowSpecification`` takes the list from the decoder's `userInfo`
/// (``decoder()``).
///
/// ```swift
/// let kinds = DaemonFlowKinds.standard
/// let configuration = try DaemonConfiguration(contentsOfFile: path, flowKinds: kinds)
/// let flow = try kinds.decoder().decode(FlowSpecification.self, from: Data(#"{"kind": "report"}"#.utf8))
/// ```
public struct DaemonFlowKinds: Sendable {
    /// Every kind, in the order error messages list them (`fleet` last).
    public let kinds: [DaemonFlowKind]

    /// These kinds and `fleet`; a later kind of a name already given is left out.
    public init(_ kinds: [DaemonFlowKind]) {
        var seen: Set<String> = []
        self.kinds = (kinds + [DaemonFlowKind(FleetFlowTemplate.self)]).filter { seen.insert($0.name).inserted }
    }

    /// The kind of this name.
    public func kind(named name: String) -> DaemonFlowKind? {
        kinds.first { $0.name == name }
    }

    /// The names, comma-separated, as error messages list them.
    public var names: String {
        kinds.map(\.name).joined(separator: ", ")
    }

    /// These kinds and `more`.
    public static func + (kinds: DaemonFlowKinds, more: [DaemonFlowKind]) -> DaemonFlowKinds {
        DaemonFlowKinds(kinds.kinds + more)
    }

    /// A JSON decoder that decodes ``FlowSpecification``s (and the rules and configurations that
    /// hold them) of these kinds.
    public func decoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.userInfo[Self.userInfoKey] = self
        return decoder
    }

    /// Where a decoder's `userInfo` carries the kinds.
    public static let userInfoKey = CodingUserInfoKey(rawValue: "cardflow.daemonFlowKinds")!

    /// The kinds a decoder carries.
    static func of(_ decoder: any Decoder) -> DaemonFlowKinds? {
        decoder.userInfo[userInfoKey] as? DaemonFlowKinds
    }
}
