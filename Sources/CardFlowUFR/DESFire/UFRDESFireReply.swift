/// The RSP_EXT of a uFR DESFire command (ufr.md §4): status LE16, the reader's execution time
/// LE16 in milliseconds, then the command's own data (the free memory of DESFIRE_FREE_MEM).
public struct UFRDESFireReply: Sendable, Hashable {
    /// The status; always ``UFRDESFireStatus/ok`` in a reply ``init(_:to:)`` returns.
    public let status: UFRDESFireStatus
    /// How long the reader took, in milliseconds, as it reports.
    public let executionMilliseconds: UInt16
    /// The data after status and time.
    public let data: [UInt8]

    /// Reads the reply to a DESFire command and throws unless it says success.
    ///
    /// - Throws: ``UFRError/readerError(_:_:)`` for an ERR packet, ``UFRDESFireError`` for a
    ///   failure status, a time-only reply (no card, or a reader error) or a short EXT.
    public init(_ reply: UFRReply, to code: UFRCommandCode) throws {
        if let status = reply.status { throw UFRError.readerError(code, status) }
        let ext = reply.extensionData
        if ext.count == 2 { throw UFRDESFireError.noCardOrReaderError(code) }
        guard ext.count >= 4 else {
            throw UFRDESFireError.malformedReply(code, "\(ext.count) EXT bytes, not status and time")
        }
        status = UFRDESFireStatus(rawValue: UInt16(ext[0]) | UInt16(ext[1]) << 8)
        executionMilliseconds = UInt16(ext[2]) | UInt16(ext[3]) << 8
        data = Array(ext.dropFirst(4))
        guard status == .ok else { throw UFRDESFireError.failed(code, status) }
    }
}
