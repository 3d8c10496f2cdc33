import Logging

/// A ``CardChannel`` that logs every exchange with another channel at `trace` level, in the
/// shape cardctl's `--trace` prints:
///
/// ```text
/// >>> Send apdu 00 A4 04 00 07 A0 00 00 02 47 10 01 00
/// SW1-SW2: 90, 00
/// APDU Response: 6F 0D 83 02 70 01 84 07 A0 00 00 02 47 10 01
/// ```
///
/// Each line is one log record. Records carry the metadata `apdu.ins` (e.g. `"A4"`); the status
/// and response records add `apdu.sw` (e.g. `"9000"`), the response record `apdu.length` (data
/// bytes); any record with hidden bytes has `apdu.redacted: "true"`. A failed exchange logs
/// `APDU exchange failed: <error>` with `error.type`. The send line is logged before the command
/// goes out, so a hanging exchange shows what it was waiting for.
///
/// Secrets are hidden by ``APDURedaction`` rules given by the layers that know them; hidden bytes
/// appear as `**`. A GET RESPONSE (INS C0) after a `61xx` answer inherits the response redaction
/// of the command that started the chain.
///
/// When the logger's level is above `trace`, the channel only forwards: nothing is formatted
/// and no redaction rule runs.
///
/// ```swift
/// var logger = Logger(label: "cardflow.apdu")
/// logger.logLevel = .trace
/// let channel = TracingCardChannel(wrapping: CCIDCardChannel(driver: driver), logger: logger,
///                                  redaction: .instruction(0xC4))
/// let answer = try await channel.send(selectCommand)
/// ```
///
/// Use one traced channel for one card conversation at a time, as with any channel: exchanges
/// sent concurrently interleave in the log and confuse GET RESPONSE redaction.
public struct TracingCardChannel: CardChannel {
    /// The channel the exchanges go to.
    public let base: any CardChannel
    /// Where the trace goes; its metadata (a reader name, say) is on every record.
    public let logger: Logger
    /// What the trace hides.
    public let redaction: APDURedaction
    private let getResponseRedaction: GetResponseRedaction
    private let metadataStore = APDUTraceMetadataStore()
    /// The logger's handler, read once, as ``SessionChannel`` does: the records of an exchange the
    /// level check let through go to it directly, without the logger's copy-on-write box and its
    /// exclusivity checks twice per record. Same records: `logger` never changes, its level is the
    /// handler's, and the handler adds its own metadata and provider as it would under the logger.
    private let logHandler: any LogHandler

    public init(wrapping base: any CardChannel, logger: Logger, redaction: APDURedaction = .none) {
        self.init(wrapping: base, logger: logger, redaction: redaction, getResponseRedaction: GetResponseRedaction())
    }

    /// For ``SessionChannel``, whose tracing channels (one per set of redaction rules) share one
    /// GET RESPONSE state.
    init(
        wrapping base: any CardChannel, logger: Logger, redaction: APDURedaction,
        getResponseRedaction: GetResponseRedaction
    ) {
        self.base = base
        self.logger = logger
        self.redaction = redaction
        self.getResponseRedaction = getResponseRedaction
        logHandler = logger.handler
    }

    public func transmit(_ command: CommandAPDU) async throws -> ResponseAPDU {
        guard isTracing else {
            recordUntraced()
            return try await base.transmit(command)
        }
        return try await traced(command) { command, _ in try await base.transmit(command) }
    }

    // The parts of `transmit`, for ``SessionChannel``, which runs them around its own exchange.

    /// Whether exchanges are traced now (the logger's level is `trace`).
    var isTracing: Bool { logHandler.logLevel <= .trace }

    /// Notes an exchange that went by untraced (a later GET RESPONSE could continue it).
    func recordUntraced() {
        getResponseRedaction.recordUntraced()
    }

    /// Traces `command` and its answer around `exchange`, which gets the command's encoded bytes
    /// too (the send line needed them; a backend need not encode them again).
    ///
    /// What the records cost: each line is one string (``APDUTraceText``), and each record's
    /// metadata dictionary is the channel's, rewritten in place where the APDU's instruction, status
    /// word or length differs from the previous one's (``APDUTraceMetadata``); only a record with
    /// hidden bytes gets a copy with `apdu.redacted` added.
    @inline(__always) // a frame of its own and a hop back after the exchange, per traced APDU
    func traced(
        _ command: CommandAPDU,
        through exchange: (CommandAPDU, consuming [UInt8]) async throws -> ResponseAPDU
    ) async throws -> ResponseAPDU {
        let ranges = redaction.hidesNothing ? .none : redaction.ranges(for: command)
        let carried = getResponseRedaction.carriedRanges(for: command)
        // Joined only when there is something to join (`+` takes the array's growth path even for
        // two empty ones).
        let responseRanges = carried.isEmpty ? ranges.responseData : ranges.responseData + carried

        var metadata = metadataStore.take()
        metadata.setInstruction(command.ins)
        let encoded = command.encoded()
        let sendLine = APDUTraceText.sendLine(command, encoded: encoded, hiding: ranges.commandData)
        record(sendLine.text, metadata: sendLine.redacted ? Self.markedRedacted(metadata.send) : metadata.send)

        let response: ResponseAPDU
        do {
            // Handed over: the backend may frame the command in its storage.
            response = try await exchange(command, consume encoded)
        } catch {
            getResponseRedaction.recordTraced(command, ownRanges: ranges.responseData, response: nil)
            metadataStore.putBack(metadata)
            logger.trace(
                "APDU exchange failed: \(error)",
                metadata: [
                    APDUTraceMetadata.instructionKey: APDUTraceMetadata.instructionValues[Int(command.ins)],
                    "error.type": "\(String(describing: type(of: error)))",
                ])
            throw error
        }
        getResponseRedaction.recordTraced(command, ownRanges: ranges.responseData, response: response)

        metadata.setAnswer(statusWord: UInt16(response.sw1) << 8 | UInt16(response.sw2), length: response.data.count)
        record(APDUTraceText.statusLine(response), metadata: metadata.status)
        let responseLine = APDUTraceText.responseLine(response, hiding: responseRanges)
        record(
            responseLine.text,
            metadata: responseLine.redacted ? Self.markedRedacted(metadata.response) : metadata.response)
        metadataStore.putBack(metadata)
        return response
    }

    /// Logs `text` at `trace` as `logger.trace` would (the caller checked the level): the line as
    /// the message itself, since an interpolation would copy it.
    private func record(
        _ text: String, metadata: Logger.Metadata, function: String = #function, line: UInt = #line
    ) {
        logHandler.log(
            event: LogEvent(
                level: .trace, message: Logger.Message(stringLiteral: text), metadata: metadata, source: nil,
                file: #fileID, function: function, line: line))
    }

    /// A record's metadata with `apdu.redacted: "true"` (a copy: the kept one stays without it).
    private static func markedRedacted(_ metadata: Logger.Metadata) -> Logger.Metadata {
        var marked = metadata
        marked[APDUTraceMetadata.redactedKey] = "true"
        return marked
    }
}
