import Logging

/// The configuration in force, replaced as a whole on reload (`SIGHUP`); a file that does not
/// load keeps the previous configuration.
public actor ConfigurationStore {
    public private(set) var current: DaemonConfiguration
    public nonisolated let path: String?
    /// The flow kinds the configuration's rules and control requests may name.
    public nonisolated let flowKinds: DaemonFlowKinds

    /// - Parameters:
    ///   - configuration: the configuration in force.
    ///   - path: the file it came from, read again on reload; nil when it came from code.
    ///   - flowKinds: the flow kinds the daemon runs (cardd: `DaemonFlowKinds.standard`).
    public init(_ configuration: DaemonConfiguration, path: String?, flowKinds: DaemonFlowKinds) {
        current = configuration
        self.path = path
        self.flowKinds = flowKinds
    }

    /// Reads the file again. Returns the error when it cannot be used (the old configuration stays).
    @discardableResult
    public func reload(logger: Logger) -> DaemonConfigurationError? {
        guard let path else { return nil }
        do {
            let fresh = try DaemonConfiguration(contentsOfFile: path, flowKinds: flowKinds)
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
