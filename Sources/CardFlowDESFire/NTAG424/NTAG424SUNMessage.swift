/// A verified SUN message: what the tag said about itself, and the file data it enciphered.
///
/// The SDMMAC proves the tag produced the message; it does not prove the message is new. Replay
/// protection is the caller's: accept a message only if ``readCounter`` is above the last one
/// accepted for this UID, and store it.
///
/// ```swift
/// let message = try verifier.verify(piccData: e, mac: c)
/// guard message.readCounter! > lastCounter[message.uid!] ?? 0 else { throw Replayed() }
/// ```
public struct NTAG424SUNMessage: Sendable, Hashable {
    /// The tag's 7-byte UID, when mirrored.
    public let uid: [UInt8]?
    /// SDMReadCtr, when mirrored: counts the tag's SUN reads, never goes back.
    public let readCounter: UInt32?
    /// The deciphered SDMENCFileData, when the message had some.
    public let fileData: [UInt8]?
    /// The PICCDataTag (`C7` when UID and counter are mirrored), `nil` for a plain mirror.
    public let piccDataTag: UInt8?

    /// A message as a verifier made it (or as a store kept it).
    public init(uid: [UInt8]?, readCounter: UInt32?, fileData: [UInt8]?, piccDataTag: UInt8?) {
        self.uid = uid
        self.readCounter = readCounter
        self.fileData = fileData
        self.piccDataTag = piccDataTag
    }
}
