import CardFlow
import CardFlowDaemonControl
import Logging

/// A kind of daemon flow, as a plug: its JSON parameters (the type itself, `Codable`, checked
/// when decoded), its `kind` name, whether the fleet may drive it, and how it builds its job. Each
/// kind is one type in its own file (the package's are in CardFlowDaemonFlows), registered by one
/// entry in the ``DaemonFlowKinds`` a program gives the daemon; the daemon core names none.
///
/// ```swift
/// struct BeepFlow: DaemonFlow {
///     static let kind = "beep"
///     static let writesToCard = false
///     func job(_ context: DaemonFlowContext) async throws -> FlowJob {
///         FlowJob(flow: DaemonFlowSteps.identify)
///     }
/// }
/// let kinds = DaemonFlowKinds.standard + [DaemonFlowKind(BeepFlow.self)]
/// ```
public protocol DaemonFlow: Sendable, Codable {
    /// The flow's `kind` in JSON (`"desfire-provision"`); the job log and metrics show it.
    static var kind: String { get }
    /// Whether running it changes the card (a flow that only reads is harmless to run twice).
    static var writesToCard: Bool { get }
    /// Whether a fleet record can drive it (`{"kind": "fleet", "flow": {"kind": …}}`): the flow
    /// personalises a card from parameters each record completes.
    static var personalisesCard: Bool { get }
    /// The flow to run, with its keys and secrets taken from the context's key store; fails
    /// before any card is touched when a key or parameter is missing or wrong.
    func job(_ context: DaemonFlowContext) async throws -> FlowJob
}

extension DaemonFlow {
    /// Most flows are not a fleet's.
    public static var personalisesCard: Bool { false }
}

/// What a flow's job may use: the daemon's key store and logger.
public struct DaemonFlowContext: Sendable {
    /// Where flows take keys and secrets (by slot or name); nil when the daemon has none.
    public let keys: (any KeyStore)?
    /// Where the flow logs.
    public let logger: Logger

    /// - Parameters:
    ///   - keys: the key store, if any.
    ///   - logger: the flow's logger.
    public init(keys: (any KeyStore)?, logger: Logger = Logger(label: "cardd.flow")) {
        self.keys = keys
        self.logger = logger
    }

    /// The key store, for a flow that cannot run without one.
    ///
    /// - Throws: ``DaemonFlowError/noKeyStore``.
    public func requiredKeys() throws(DaemonFlowError) -> any KeyStore {
        guard let keys else { throw .noKeyStore }
        return keys
    }

    /// A named secret's bytes.
    ///
    /// - Throws: ``DaemonFlowError/noKeyStore``, ``DaemonFlowError/missingSecret(_:)``, or the
    ///   key store's error.
    public func secret(_ name: String) async throws -> [UInt8] {
        try await Self.secret(name, in: try requiredKeys())
    }

    /// A named secret's bytes from `keys`.
    ///
    /// - Throws: ``DaemonFlowError/missingSecret(_:)``, or the key store's error.
    public static func secret(_ name: String, in keys: any KeyStore) async throws -> [UInt8] {
        guard let secret = try await keys.secret(named: name) else { throw DaemonFlowError.missingSecret(name) }
        return secret.bytes
    }
}

/// Steps every flow kind shares.
public enum DaemonFlowSteps {
    /// Records the card's identity (ATR, UID), so that the job log has it even when a later step
    /// fails: every flow starts with it.
    public static let identify = Flow.start("identify") { session in
        let identity = await session.identity
        var values = ["atr": identity.atr.hexString]
        if let uid = identity.uid { values["uid"] = uid.hexString }
        return JobOutcome(values)
    }
}
