/// How strictly ``NDEFMessage/init(decoding:mode:)`` and the record views hold bytes to the
/// NFC Forum specifications.
///
/// ```swift
/// // A record without the MB flag, as some tags carry it:
/// let bytes: [UInt8] = [0x51, 0x01, 0x01, 0x55, 0x00]
/// _ = try? NDEFMessage(decoding: bytes, mode: .strict)    // throws: missing MB
/// let message = try NDEFMessage(decoding: bytes, mode: .lenient)
/// ```
public enum NDEFDecodingMode: Sendable, Hashable {
    /// Reject everything the specifications forbid: MB/ME flag errors, the reserved TNF 0x07,
    /// empty records with fields, types where none may be, missing types, IDs on continuation
    /// chunks, bytes after the last record, reserved bits in well-known payloads.
    case strict
    /// Accept what real tags contain whenever the meaning is unambiguous: missing or extra
    /// MB/ME flags, the reserved TNF (kept as ``TypeNameFormat/reserved``), stray TYPE or ID
    /// fields where none belong (kept), bytes after the record with ME (ignored), reserved bits.
    /// Truncated fields and broken chunk sequences are errors in both modes.
    case lenient
}
