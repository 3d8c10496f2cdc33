import Logging

/// cardctl's logger: warnings and errors on stderr; debug detail with --trace.
enum CommandLogging {
    static func logger(trace: Bool) -> Logger {
        var logger = Logger(label: "cardctl") { label in StreamLogHandler.standardError(label: label) }
        logger.logLevel = trace ? .debug : .warning
        return logger
    }
}
