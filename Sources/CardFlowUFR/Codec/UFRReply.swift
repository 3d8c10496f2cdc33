import CardFlow

/// A uFR reader's answer to a command: a response (RSP, the command succeeded) or an error
/// (ERR), each with Val0, Val1 and the data of the EXT block that followed it.
///
/// ```swift
/// switch reply.outcome {
/// case .response(let code): …        // code is the command answered
/// case .error(let status): …         // status says why it failed; ERR does not name the command
/// }
/// ```
public struct UFRReply: Sendable, Hashable, CustomStringConvertible {
    /// What kind of answer it is.
    public enum Outcome: Sendable, Hashable {
        /// RSP for this command code.
        case response(UFRCommandCode)
        /// ERR with this error code.
        case error(UFRStatus)
    }

    /// RSP or ERR, with its code.
    public let outcome: Outcome
    /// Byte 4, Val0.
    public let value0: UInt8
    /// Byte 5, Val1.
    public let value1: UInt8
    /// The EXT data (without its checksum); empty when none followed.
    public let extensionData: [UInt8]

    /// - Parameters:
    ///   - outcome: RSP or ERR.
    ///   - value0: Val0.
    ///   - value1: Val1.
    ///   - extensionData: the EXT data.
    public init(outcome: Outcome, value0: UInt8 = 0, value1: UInt8 = 0, extensionData: [UInt8] = []) {
        self.outcome = outcome
        self.value0 = value0
        self.value1 = value1
        self.extensionData = extensionData
    }

    /// The error code of an ERR, nil for an RSP.
    public var status: UFRStatus? {
        if case .error(let status) = outcome { return status }
        return nil
    }

    /// The bytes on the wire: the 7-byte packet, then the EXT block when there is data.
    ///
    /// A reply with an empty EXT (length byte 1) cannot be told from one without; this encodes
    /// the latter.
    public var bytes: [UInt8] {
        let packet: UFRPacket
        let length = extensionData.isEmpty ? 0 : UInt8(clamping: extensionData.count + 1)
        switch outcome {
        case .response(let code):
            packet = UFRPacket(
                kind: .response, code: code.rawValue, extensionLength: length, parameter0: value0, parameter1: value1)
        case .error(let status):
            packet = UFRPacket(
                kind: .error, code: status.rawValue, extensionLength: length, parameter0: value0, parameter1: value1)
        }
        return packet.bytes + (extensionData.isEmpty ? [] : extensionData + [UFRChecksum.of(extensionData)])
    }

    public var description: String {
        let head =
            switch outcome {
            case .response(let code): "RSP \(code)"
            case .error(let status): "ERR \(status)"
            }
        let values = "val \([value0, value1].spacedHexString)"
        return extensionData.isEmpty ? "\(head) \(values)" : "\(head) \(values) EXT \(extensionData.spacedHexString)"
    }
}
