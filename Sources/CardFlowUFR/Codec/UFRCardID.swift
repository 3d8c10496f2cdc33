import CardFlow

/// The card in the field as GET_CARD_ID_EX (0x2C) reports it: SAK and UID.
///
/// ```swift
/// let id = try UFRCardID(reply: reply)   // RSP 2C, Val0 SAK, Val1 UID length, EXT UID padded to 10
/// id.uid                                 // the UID in anticollision order
/// ```
public struct UFRCardID: Sendable, Hashable, CustomStringConvertible {
    /// The SAK byte (Val0).
    public let sak: UInt8
    /// The UID, 4, 7 or 10 bytes, in anticollision order.
    public let uid: [UInt8]

    /// - Parameters:
    ///   - sak: the SAK.
    ///   - uid: the UID.
    public init(sak: UInt8, uid: [UInt8]) {
        self.sak = sak
        self.uid = uid
    }

    /// Reads GET_CARD_ID_EX's answer: nil when its UID length (Val1) is not 4, 7 or 10 or the
    /// EXT holds fewer bytes.
    public init?(reply: UFRReply) {
        let length = Int(reply.value1)
        guard [4, 7, 10].contains(length), reply.extensionData.count >= length else { return nil }
        self.init(sak: reply.value0, uid: Array(reply.extensionData.prefix(length)))
    }

    public var description: String { "UID \(uid.spacedHexString) SAK \([sak].spacedHexString)" }
}
