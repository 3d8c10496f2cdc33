import CardFlowHex
import Logging
import Synchronization

/// The metadata of a traced APDU's three records (send, status, response), kept from one APDU to
/// the next so that each record's dictionary is rewritten in place.
///
/// Building the dictionaries anew for every APDU (an allocation, a hash of every key, a resize)
/// was about a third of what tracing cost a short APDU (issue 40). Here the keys are hashed once,
/// when the dictionaries are made, and each APDU writes its values through indices found then,
/// only those that changed: with them the instruction's, status word's and length's strings, which
/// were about a fifth of what tracing cost a short APDU.
/// A handler that keeps a record's metadata keeps what it was given: the next write finds the
/// storage shared and copies it first (copy-on-write), and a copy keeps the original's indices.
struct APDUTraceMetadata {
    /// `apdu.ins`.
    private(set) var send: Logger.Metadata
    /// `apdu.ins`, `apdu.sw`.
    private(set) var status: Logger.Metadata
    /// `apdu.ins`, `apdu.sw`, `apdu.length`.
    private(set) var response: Logger.Metadata

    private let sendInstruction: Logger.Metadata.Index
    private let statusInstruction: Logger.Metadata.Index
    private let statusWord: Logger.Metadata.Index
    private let responseInstruction: Logger.Metadata.Index
    private let responseStatusWord: Logger.Metadata.Index
    private let responseLength: Logger.Metadata.Index

    /// What the dictionaries hold now (`nil`: the empty placeholders they were made with). A
    /// conversation repeats its instructions, status words and lengths (a read loop, `9000`), and
    /// an unchanged value is neither looked up nor written again: each write is a uniqueness check,
    /// a release and a retain, in up to three dictionaries.
    private var currentInstruction: UInt8?
    private var currentStatusWord: UInt16?
    private var currentLength: Int?

    static let instructionKey = "apdu.ins"
    static let statusWordKey = "apdu.sw"
    static let lengthKey = "apdu.length"
    /// Only on a record with hidden bytes (a copy of the kept metadata).
    static let redactedKey = "apdu.redacted"

    init() {
        let empty = Logger.MetadataValue.string("")
        send = [Self.instructionKey: empty]
        status = [Self.instructionKey: empty, Self.statusWordKey: empty]
        response = [Self.instructionKey: empty, Self.statusWordKey: empty, Self.lengthKey: empty]
        // The keys were just inserted: each lookup finds its key.
        sendInstruction = send.index(forKey: Self.instructionKey)!
        statusInstruction = status.index(forKey: Self.instructionKey)!
        statusWord = status.index(forKey: Self.statusWordKey)!
        responseInstruction = response.index(forKey: Self.instructionKey)!
        responseStatusWord = response.index(forKey: Self.statusWordKey)!
        responseLength = response.index(forKey: Self.lengthKey)!
    }

    /// `"A4"` for each byte value, made once: an APDU's instruction is a table read, and its status
    /// word two reads joined (two-character strings are stored inline: no allocation, no UTF-8
    /// validation, where formatting each value anew validated the characters it had just written).
    private static let byteDigits: [String] = (0...255).map { HexFormat.digits(UInt8($0)) }
    static let instructionValues: [Logger.MetadataValue] = byteDigits.map { .string($0) }
    /// `"0"` … `"256"`: every length a short APDU's answer can have.
    private static let lengthValues: [Logger.MetadataValue] = (0...256).map { .string(String($0)) }

    /// Starts an APDU: its instruction goes on every record.
    mutating func setInstruction(_ instruction: UInt8) {
        guard instruction != currentInstruction else { return }
        currentInstruction = instruction
        let value = Self.instructionValues[Int(instruction)]
        send.values[sendInstruction] = value
        status.values[statusInstruction] = value
        response.values[responseInstruction] = value
    }

    /// The answer's status word (`"9000"`) and data length, for the status and response records.
    mutating func setAnswer(statusWord sw: UInt16, length: Int) {
        if sw != currentStatusWord {
            currentStatusWord = sw
            let value = Logger.MetadataValue.string(
                Self.byteDigits[Int(sw >> 8)] + Self.byteDigits[Int(sw & 0xFF)])
            status.values[statusWord] = value
            response.values[responseStatusWord] = value
        }
        if length != currentLength {
            currentLength = length
            response.values[responseLength] =
                Self.lengthValues.indices.contains(length) ? Self.lengthValues[length] : .string(String(length))
        }
    }
}

/// Where a tracing channel keeps its ``APDUTraceMetadata`` between APDUs. An exchange takes it
/// and puts it back; exchanges traced at the same time (which the channel's users avoid anyway)
/// each get their own.
final class APDUTraceMetadataStore: Sendable {
    private let stored = Mutex<APDUTraceMetadata?>(nil)

    /// The kept metadata, or new metadata when none is kept (the first APDU, or another is using it).
    func take() -> APDUTraceMetadata {
        stored.withLock { $0.take() } ?? APDUTraceMetadata()
    }

    /// Keeps `metadata` for the next APDU.
    func putBack(_ metadata: APDUTraceMetadata) {
        stored.withLock { $0 = metadata }
    }
}
