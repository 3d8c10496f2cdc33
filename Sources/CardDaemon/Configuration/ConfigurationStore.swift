import Logging

/// The configuration in force, replaced as a whole on reload (`SIGHUP`); a file that does not
/// load keeps the previous configuration.
public actor ConfigurationStore {
    public private(set) var current: DaemonConfiguration
    public nonisolated let path: String?

    public init(_ configuration: DaemonConfiguration, path: String?) {
        current = configuration
        self.path = path
    }

    /// Reads the file again. Returns the error when it cannot be used (the old configuration stays).
    @discardableResult
    public func reload(logger: Logger) -> DaemonConfigurationError? {
        guard let path else { return nil }
        do {
            let fresh = try DaemonConfiguration(contentsOfFile: path)
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
