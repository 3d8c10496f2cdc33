import CardFlow
import Logging

/// The configuration in force, replaced as a whole on reload (`SIGHUP`); a file that does not
/// load keeps the previous configuration.
public actor ConfigurationStore {
    public private(set) var current: DaemonConfiguration
    public nonisolated let path: String?
    /// The flow kinds the configuration's rules and control requests may name.
    public nonisolated let flowKinds: DaemonFlowKinds
    /// The card families the rules' `match.family` may name, detected when a card arrives.
    public nonisolated let cardFamilies: CardFamilyDetection

    /// - Parameters:
    ///   - configuration: the configuration in force.
    ///   - path: the file it came from, read again on reload; nil when it came from code.
    ///   - flowKinds: the flow kinds the daemon runs (cardd: `DaemonFlowKinds.standard`).
    ///   - cardFamilies: the card-family detectors the daemon links (cardd lists DESFire, TON,
    ///     ISO 15693 and NDEF); none by default, and then no rule may match on a family.
    public init(
        _ configuration: DaemonConfiguration, path: String?, flowKinds: DaemonFlowKinds,
        cardFamilies: CardFamilyDetection = CardFamilyDetection([])
    ) {
        current = configuration
        self.path = path
        self.flowKinds = flowKinds
        self.cardFamilies = cardFamilies
    }

    /// The error for a rule that matches on a family no detector names (the daemon refuses to
    /// start with it, and a reload with it keeps the previous configuration); nil when all are known.
    public func familiesError() -> DaemonConfigurationError? {
        Self.familiesError(current, path: path, known: cardFamilies)
    }

    private static func familiesError(
        _ configuration: DaemonConfiguration, path: String?, known: CardFamilyDetection
    ) -> DaemonConfigurationError? {
        let names = known.detectors.map(\.family)
        for rule in configuration.rules {
            if let family = rule.match.family, !names.contains(family) {
                let list = names.isEmpty ? "none" : names.joined(separator: ", ")
                return .invalid(
                    path: path ?? "(configuration)",
                    reason:
                        "rule '\(rule.name)' matches family '\(family)', which is not one this daemon detects (\(list))"
                )
            }
        }
        return nil
    }

    /// Reads the file again. Returns the error when it cannot be used (the old configuration stays).
    @discardableResult
    public func reload(logger: Logger) -> DaemonConfigurationError? {
        guard let path else { return nil }
        do throws(DaemonConfigurationError) {
            let fresh = try DaemonConfiguration(contentsOfFile: path, flowKinds: flowKinds)
            if let error = Self.familiesError(fresh, path: path, known: cardFamilies) {
                throw error as DaemonConfigurationError
            }
            if fresh.readers != current.readers {
                logger.warning("reader selectors changed; they take effect at the next start")
            }
            current = fresh
            logger.info("configuration reloaded", metadata: ["rules": "\(fresh.rules.count)"])
            return nil
        } catch {
            logger.error("configuration reload failed; keeping the previous one", metadata: ["error": "\(error)"])
            return error
        }
    }
}
