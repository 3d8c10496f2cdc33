/// A bulk-OUT message from the host to the reader (CCID rev 1.1, section 6.1).
///
/// ```swift
/// let powerOn = CCIDCommand(slot: 0, sequence: 7, kind: .iccPowerOn(.automatic))
/// powerOn.encoded()   // 62 00 00 00 00 00 07 00 00 00
/// ```
public struct CCIDCommand: Sendable, Hashable {
    /// bSlot.
    public var slot: UInt8
    /// bSeq: the reader copies it into its answer.
    public var sequence: UInt8
    /// The message type with its fields and payload.
    public var kind: Kind

    public init(slot: UInt8, sequence: UInt8, kind: Kind) {
        self.slot = slot
        self.sequence = sequence
        self.kind = kind
    }

    /// The command messages and their specific fields.
    public enum Kind: Sendable, Hashable {
        case iccPowerOn(CCIDPowerSelect)
        case iccPowerOff
        case getSlotStatus
        /// bBWI extends the block waiting time; wLevelParameter drives extended-APDU chaining.
        case xfrBlock(blockWaitingTimeMultiplier: UInt8, levelParameter: UInt16, data: [UInt8])
        case getParameters
        case resetParameters
        case setParameters(CCIDProtocolParameters)
        case escape([UInt8])
        /// 0 restarts the clock, 1 stops it.
        case iccClock(clockCommand: UInt8)
        case t0APDU(changes: UInt8, classGetResponse: UInt8, classEnvelope: UInt8)
        case secure(blockWaitingTimeMultiplier: UInt8, levelParameter: UInt16, data: [UInt8])
        /// 1 accept, 2 eject, 3 capture, 4 lock, 5 unlock.
        case mechanical(function: UInt8)
        case abort
        case setDataRateAndClockFrequency(clockFrequency: UInt32, dataRate: UInt32)
    }

    /// The bMessageType of this command.
    public var messageType: CCIDMessageType {
        switch kind {
        case .iccPowerOn: .iccPowerOn
        case .iccPowerOff: .iccPowerOff
        case .getSlotStatus: .getSlotStatus
        case .xfrBlock: .xfrBlock
        case .getParameters: .getParameters
        case .resetParameters: .resetParameters
        case .setParameters: .setParameters
        case .escape: .escape
        case .iccClock: .iccClock
        case .t0APDU: .t0APDU
        case .secure: .secure
        case .mechanical: .mechanical
        case .abort: .abort
        case .setDataRateAndClockFrequency: .setDataRateAndClockFrequency
        }
    }

    /// The wire bytes: 10-byte header followed by the payload.
    public func encoded() -> [UInt8] {
        var bytes: [UInt8] = []
        encode(into: &bytes)
        return bytes
    }

    /// Replaces the contents of `bytes` with the wire bytes, reusing its storage: a driver that
    /// keeps one buffer for its outgoing messages allocates none per message.
    ///
    /// ```swift
    /// var frame: [UInt8] = []
    /// CCIDCommand(slot: 0, sequence: 1, kind: .getSlotStatus).encode(into: &frame)
    /// // 65 00 00 00 00 00 01 00 00 00
    /// ```
    public func encode(into bytes: inout [UInt8]) {
        var specific: (UInt8, UInt8, UInt8) = (0, 0, 0)
        var payload: [UInt8] = []
        switch kind {
        case .iccPowerOn(let select): specific.0 = select.rawValue
        case .iccPowerOff, .getSlotStatus, .getParameters, .resetParameters, .abort: break
        case .xfrBlock(let bwi, let level, let data), .secure(let bwi, let level, let data):
            specific = (bwi, UInt8(truncatingIfNeeded: level), UInt8(truncatingIfNeeded: level >> 8))
            payload = data
        case .setParameters(let parameters):
            specific.0 = parameters.protocolNumber
            payload = parameters.bytes
        case .escape(let data): payload = data
        case .iccClock(let command): specific.0 = command
        case .t0APDU(let changes, let getResponse, let envelope): specific = (changes, getResponse, envelope)
        case .mechanical(let function): specific.0 = function
        case .setDataRateAndClockFrequency(let clock, let rate):
            payload.reserveCapacity(8)
            payload.appendLittleEndian(clock)
            payload.appendLittleEndian(rate)
        }
        CCIDFraming.encode(
            type: messageType, slot: slot, sequence: sequence, fields: specific, payload: payload, into: &bytes)
    }

    /// Decodes a bulk-OUT message, as a reader does.
    ///
    /// Errors follow what a reader must report: an unknown type, a `dwLength` that disagrees with
    /// the transfer, or a fixed-size command with another payload size.
    public init(decoding bytes: [UInt8]) throws(CCIDFrameError) {
        let (type, payload) = try CCIDFraming.decode(bytes, commands: true)
        func requireEmpty() throws(CCIDFrameError) {
            guard payload.isEmpty else { throw .invalidPayloadLength(type, length: payload.count, expected: "0") }
        }
        let (b7, b8, b9) = (bytes[7], bytes[8], bytes[9])
        let level = UInt16(b8) | UInt16(b9) << 8
        let kind: Kind
        switch type {
        case .iccPowerOn:
            try requireEmpty()
            guard let select = CCIDPowerSelect(rawValue: b7) else { throw .invalidField(type, offset: 7, value: b7) }
            kind = .iccPowerOn(select)
        case .iccPowerOff: try requireEmpty(); kind = .iccPowerOff
        case .getSlotStatus: try requireEmpty(); kind = .getSlotStatus
        case .getParameters: try requireEmpty(); kind = .getParameters
        case .resetParameters: try requireEmpty(); kind = .resetParameters
        case .abort: try requireEmpty(); kind = .abort
        case .xfrBlock: kind = .xfrBlock(blockWaitingTimeMultiplier: b7, levelParameter: level, data: payload)
        case .secure: kind = .secure(blockWaitingTimeMultiplier: b7, levelParameter: level, data: payload)
        case .setParameters:
            kind = .setParameters(try CCIDProtocolParameters(protocolNumber: b7, bytes: payload, in: type))
        case .escape: kind = .escape(payload)
        case .iccClock:
            try requireEmpty()
            guard b7 <= 1 else { throw .invalidField(type, offset: 7, value: b7) }
            kind = .iccClock(clockCommand: b7)
        case .t0APDU: try requireEmpty(); kind = .t0APDU(changes: b7, classGetResponse: b8, classEnvelope: b9)
        case .mechanical:
            try requireEmpty()
            guard (1...5).contains(b7) else { throw .invalidField(type, offset: 7, value: b7) }
            kind = .mechanical(function: b7)
        case .setDataRateAndClockFrequency:
            guard payload.count == 8 else { throw .invalidPayloadLength(type, length: payload.count, expected: "8") }
            kind = .setDataRateAndClockFrequency(
                clockFrequency: payload.littleEndianUInt32(at: 0),
                dataRate: payload.littleEndianUInt32(at: 4))
        case .dataBlock, .slotStatus, .parameters, .escapeResponse, .dataRateAndClockFrequency:
            throw .unknownMessageType(bytes[0])
        }
        self.init(slot: bytes[5], sequence: bytes[6], kind: kind)
    }
}

/// bPowerSelect of IccPowerOn.
public enum CCIDPowerSelect: UInt8, Sendable, Hashable {
    case automatic = 0
    case volts5 = 1
    case volts3 = 2
    // 1.8 V: the underscore stands for the decimal point (public API name).
    // swift-format-ignore: AlwaysUseLowerCamelCase
    case volts1_8 = 3
}

/// wLevelParameter values for extended-APDU chaining (CCID 6.1.4).
public enum CCIDLevelParameter {
    /// The command APDU begins and ends in this message.
    public static let complete: UInt16 = 0x0000
    /// The command APDU begins here and continues in the next message.
    public static let begins: UInt16 = 0x0001
    /// This message ends the command APDU.
    public static let ends: UInt16 = 0x0002
    /// This message continues the command APDU, and more follows.
    public static let continues: UInt16 = 0x0003
    /// Empty message asking the reader for the next part of the response.
    public static let nextResponsePart: UInt16 = 0x0010
}

/// bChainParameter values of DataBlock responses (CCID 6.2.1).
public enum CCIDChainParameter {
    public static let complete: UInt8 = 0x00
    public static let begins: UInt8 = 0x01
    public static let ends: UInt8 = 0x02
    public static let continues: UInt8 = 0x03
    /// Empty abData: the reader expects the next part of the command.
    public static let expectsMore: UInt8 = 0x10
}
