import Logging

/// cardctl's logger: warnings and errors on stderr (APDU tracing is `--trace`, printed separately).
enum CommandLogging {
    static func logger(trace _: Bool) -> Logger {
        var logger = Logger(label: "cardctl") { label in StreamLogHandler.standardError(label: label) }
        logger.logLevel = .warning
        return logger
    }
}
