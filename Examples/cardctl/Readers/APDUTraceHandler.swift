import Logging

/// Prints the APDU trace lines CardFlow logs at `trace` (`>>> Send apdu …`, `SW1-SW2: …`,
/// `APDU Response: …`) as plain lines, for `--trace`; other records are not printed.
struct APDUTraceHandler: LogHandler {
    let write: @Sendable (String) -> Void
    var logLevel: Logger.Level = .trace
    var metadata: Logger.Metadata = [:]

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        // The tracing channel tags its records with the instruction byte.
        guard event.metadata?["apdu.ins"] != nil else { return }
        write(event.message.description)
    }
}
