import CardFlow
import CardFlowDaemonControl
import Foundation

/// What `cardd` runs: which readers it watches, which flow runs on which card, and where it
/// keeps its socket, job log and keys. Loaded from a JSON file; `SIGHUP` reloads it.
///
/// ```json
/// {
///   "readers": ["usb"],
///   "socket": "/run/cardd/cardd.sock",
///   "jobLog": "/var/lib/cardd/jobs.sqlite",
///   "cooldownMilliseconds": 200,
///   "protocol": "t1",
///   "rules": [
///     { "name": "posters", "match": { "aid": "D2760000850101" },
///       "flow": { "kind": "ndef-write", "uri": "https://example.com" } },
///     { "name": "everything else", "match": {}, "flow": { "kind": "report" } }
///   ]
/// }
/// ```
public struct DaemonConfiguration: Sendable, Hashable, Codable {
    /// Reader selectors: `usb` (every CCID reader, with hotplug), `usb:VVVV:PPPP`, `usb:serial=X`, or `sim:…`.
    public var readers: [String]
    /// The control socket; ``DaemonConfiguration/defaultSocketPath()`` when nil.
    public var socket: String?
    /// The SQLite job log; ``DaemonConfiguration/defaultJobLogPath()`` when nil.
    public var jobLog: String?
    /// The key store file that flows take their keys from, by slot.
    public var keyStore: String?
    /// Serve `GET /metrics` on 127.0.0.1 at this port (off when nil).
    public var metricsPort: Int?
    /// Pause between two sessions on one reader.
    public var cooldownMilliseconds: Int
    /// How long a flow waits for a lifted card to come back.
    public var cardReturnMilliseconds: Int
    /// Bound on one APDU exchange, time extensions and WTX included: a card or reader that never
    /// answers fails the job with a timeout instead of holding the reader.
    public var apduTimeoutMilliseconds: Int
    /// Bound on one flow step (its APDUs and retries): a card that answers forever without
    /// letting the step finish (an endless read loop) fails the job with a timeout.
    public var stepTimeoutMilliseconds: Int
    /// The transmission protocol asked for when a contact card is powered on (nil, JSON
    /// `"automatic"`: T=1 when card and reader offer it, else T=0; `"t0"` or `"t1"` insist on
    /// one, and a card without it fails its job with a typed error). JSON key `protocol`.
    public var transmissionProtocol: CardProtocol?
    /// Rules tried in order when a card arrives; the first match runs.
    public var rules: [CardRule]
    /// Claim personalisation records from a store many hosts share (``FleetSettings``); a
    /// rule whose flow is `fleet` runs the claimed record. Read at start only.
    public var fleet: FleetSettings?

    public init(
        readers: [String] = ["usb"], socket: String? = nil, jobLog: String? = nil, keyStore: String? = nil,
        metricsPort: Int? = nil, cooldownMilliseconds: Int = 0, cardReturnMilliseconds: Int = 10_000,
        apduTimeoutMilliseconds: Int = DaemonConfiguration.defaultAPDUTimeoutMilliseconds,
        stepTimeoutMilliseconds: Int = DaemonConfiguration.defaultStepTimeoutMilliseconds,
        transmissionProtocol: CardProtocol? = nil, rules: [CardRule] = [], fleet: FleetSettings? = nil
    ) {
        self.fleet = fleet
        self.readers = readers
        self.metricsPort = metricsPort
        self.socket = socket
        self.jobLog = jobLog
        self.keyStore = keyStore
        self.cooldownMilliseconds = cooldownMilliseconds
        self.cardReturnMilliseconds = cardReturnMilliseconds
        self.apduTimeoutMilliseconds = apduTimeoutMilliseconds
        self.stepTimeoutMilliseconds = stepTimeoutMilliseconds
        self.transmissionProtocol = transmissionProtocol
        self.rules = rules
    }

    /// 30 s: far beyond any card operation of the flows cardd runs (DESFire and TON crypto take
    /// well under a second), short enough that a mute card frees its reader.
    public static let defaultAPDUTimeoutMilliseconds = 30_000
    /// 120 s per flow step.
    public static let defaultStepTimeoutMilliseconds = 120_000
    /// The largest APDU or step bound accepted (one hour).
    public static let maximumTimeoutMilliseconds = 3_600_000

    enum CodingKeys: String, CodingKey {
        case readers, socket, jobLog, keyStore, metricsPort, cooldownMilliseconds, cardReturnMilliseconds
        case apduTimeoutMilliseconds, stepTimeoutMilliseconds, rules, fleet
        case transmissionProtocol = "protocol"
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        readers = try container.decodeIfPresent([String].self, forKey: .readers) ?? ["usb"]
        socket = try container.decodeIfPresent(String.self, forKey: .socket)
        jobLog = try container.decodeIfPresent(String.self, forKey: .jobLog)
        keyStore = try container.decodeIfPresent(String.self, forKey: .keyStore)
        metricsPort = try container.decodeIfPresent(Int.self, forKey: .metricsPort)
        if let metricsPort, !(0...65_535).contains(metricsPort) {
            throw DecodingError.dataCorrupted(
                .init(codingPath: [CodingKeys.metricsPort], debugDescription: "a TCP port from 0 to 65535"))
        }
        cooldownMilliseconds = try container.decodeIfPresent(Int.self, forKey: .cooldownMilliseconds) ?? 0
        cardReturnMilliseconds = try container.decodeIfPresent(Int.self, forKey: .cardReturnMilliseconds) ?? 10_000
        apduTimeoutMilliseconds =
            try container.decodeIfPresent(Int.self, forKey: .apduTimeoutMilliseconds)
            ?? Self.defaultAPDUTimeoutMilliseconds
        stepTimeoutMilliseconds =
            try container.decodeIfPresent(Int.self, forKey: .stepTimeoutMilliseconds)
            ?? Self.defaultStepTimeoutMilliseconds
        let protocolName = try container.decodeIfPresent(String.self, forKey: .transmissionProtocol) ?? "automatic"
        if protocolName == "automatic" {
            transmissionProtocol = nil
        } else if let transmissionProtocol = CardProtocol(rawValue: protocolName) {
            self.transmissionProtocol = transmissionProtocol
        } else {
            throw DecodingError.dataCorrupted(
                .init(
                    codingPath: [CodingKeys.transmissionProtocol],
                    debugDescription: "automatic, t0 or t1, not '\(protocolName.prefix(32))'"))
        }
        rules = try container.decodeIfPresent([CardRule].self, forKey: .rules) ?? []
        fleet = try container.decodeIfPresent(FleetSettings.self, forKey: .fleet)
        if fleet == nil, let rule = rules.first(where: { $0.flow.kind == FleetFlowTemplate.kind }) {
            throw DecodingError.dataCorrupted(
                .init(
                    codingPath: [CodingKeys.rules],
                    debugDescription:
                        "rule '\(rule.name.prefix(64))' runs fleet records, but there is no \"fleet\" block"))
        }
        guard cooldownMilliseconds >= 0, cardReturnMilliseconds >= 0 else {
            throw DecodingError.dataCorrupted(
                .init(
                    codingPath: [CodingKeys.cooldownMilliseconds],
                    debugDescription: "durations must be >= 0"))
        }
        // No "off": a deadline that can be turned off is one a hostile card can wait out.
        for (key, value) in [
            (CodingKeys.apduTimeoutMilliseconds, apduTimeoutMilliseconds),
            (.stepTimeoutMilliseconds, stepTimeoutMilliseconds),
        ]
        where !(1...Self.maximumTimeoutMilliseconds).contains(value) {
            throw DecodingError.dataCorrupted(
                .init(
                    codingPath: [key],
                    debugDescription: "milliseconds from 1 to \(Self.maximumTimeoutMilliseconds)"))
        }
    }

    /// Reads and checks a configuration file.
    ///
    /// - Parameters:
    ///   - path: the file.
    ///   - flowKinds: the flow kinds its rules may name.
    public init(contentsOfFile path: String, flowKinds: DaemonFlowKinds) throws(DaemonConfigurationError) {
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw .unreadable(path: path, reason: error.localizedDescription)
        }
        do {
            self = try flowKinds.decoder().decode(DaemonConfiguration.self, from: data)
        } catch let error as DecodingError {
            throw .invalid(path: path, reason: DaemonConfigurationError.describe(error))
        } catch {
            throw .invalid(path: path, reason: String(describing: error))
        }
    }

    /// The rule for a card, or nil when none matches.
    public func rule(for card: CardFacts) -> CardRule? {
        rules.first { $0.match.matches(card) }
    }

    /// `/run/cardd/cardd.sock` for root, else `$XDG_RUNTIME_DIR/cardd.sock`, else `/tmp/cardd-UID/cardd.sock`.
    /// (``/CardFlowDaemonControl/ControlSocketPath/forCurrentUser()``, which clients use too.)
    public static func defaultSocketPath() -> String {
        ControlSocketPath.forCurrentUser()
    }

    /// `/var/lib/cardd/jobs.sqlite` for root, else `~/.local/state/cardd/jobs.sqlite`.
    public static func defaultJobLogPath() -> String {
        if getuid() == 0 { return "/var/lib/cardd/jobs.sqlite" }
        return NSHomeDirectory() + "/.local/state/cardd/jobs.sqlite"
    }
}

/// A configuration file that cannot be used.
public enum DaemonConfigurationError: Error, Sendable, Hashable, CustomStringConvertible {
    case unreadable(path: String, reason: String)
    case invalid(path: String, reason: String)

    public var description: String {
        switch self {
        case .unreadable(let path, let reason): "cannot read configuration \(path): \(reason)"
        case .invalid(let path, let reason): "configuration \(path) is invalid: \(reason)"
        }
    }

    static func describe(_ error: DecodingError) -> String {
        func path(_ context: DecodingError.Context) -> String {
            let keys = context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
            return keys.isEmpty ? "top level" : String(keys.drop { $0 == "." })
        }
        switch error {
        case .dataCorrupted(let context): return "\(path(context)): \(context.debugDescription)"
        case .keyNotFound(let key, let context):
            let hint = context.debugDescription.hasPrefix("No value associated") ? "" : " (\(context.debugDescription))"
            return "\(path(context)): missing key '\(key.stringValue)'\(hint)"
        case .typeMismatch(_, let context): return "\(path(context)): \(context.debugDescription)"
        case .valueNotFound(_, let context): return "\(path(context)): \(context.debugDescription)"
        @unknown default: return String(describing: error)
        }
    }
}
