/// A bulk-IN message from the reader to the host (CCID rev 1.1, section 6.2).
public struct CCIDResponse: Sendable, Hashable {
    /// bSlot, copied from the command.
    public var slot: UInt8
    /// bSeq, copied from the command.
    public var sequence: UInt8
    /// bStatus.
    public var state: CCIDSlotState
    /// bError as sent. Meaningful only when the command failed (or, for a time extension, the
    /// multiplier); some readers put garbage here on success (ACR122U sends 0x81).
    public var errorCode: UInt8
    /// Type-specific fields and payload.
    public var kind: Kind

    public init(slot: UInt8, sequence: UInt8, state: CCIDSlotState, errorCode: UInt8 = 0, kind: Kind) {
        self.slot = slot
        self.sequence = sequence
        self.state = state
        self.errorCode = errorCode
        self.kind = kind
    }

    public enum Kind: Sendable, Hashable {
        /// ATR or response data; bChainParameter for extended-APDU chaining.
        case dataBlock(chainParameter: UInt8, data: [UInt8])
        /// bClockStatus: 0 running, 1 stopped low, 2 stopped high, 3 unknown.
        case slotStatus(clockStatus: UInt8)
        case parameters(CCIDProtocolParameters)
        case escape([UInt8])
        case dataRateAndClockFrequency(clockFrequency: UInt32, dataRate: UInt32)
    }

    public var messageType: CCIDMessageType {
        switch kind {
        case .dataBlock: .dataBlock
        case .slotStatus: .slotStatus
        case .parameters: .parameters
        case .escape: .escapeResponse
        case .dataRateAndClockFrequency: .dataRateAndClockFrequency
        }
    }

    /// The typed error when the command failed, nil otherwise.
    public var slotError: CCIDSlotError? {
        state.command == .failed ? CCIDSlotError(rawValue: errorCode) : nil
    }

    /// The wire bytes.
    public func encoded() -> [UInt8] {
        var bytes: [UInt8] = []
        encode(into: &bytes)
        return bytes
    }

    /// Replaces the contents of `bytes` with the wire bytes, reusing its storage: a reader that
    /// writes its answers into storage the host lent it (``USBBulkInRead/storage``) allocates
    /// none per message.
    ///
    /// ```swift
    /// var frame: [UInt8] = []
    /// CCIDResponse(
    ///     slot: 0, sequence: 1, state: .init(icc: .presentActive, command: .processed),
    ///     kind: .dataBlock(chainParameter: 0, data: [0x90, 0x00])
    /// ).encode(into: &frame)
    /// // 80 02 00 00 00 00 01 00 00 00 90 00
    /// ```
    public func encode(into bytes: inout [UInt8]) {
        var byte9: UInt8 = 0
        var payload: [UInt8] = []
        switch kind {
        case .dataBlock(let chain, let data): byte9 = chain; payload = data
        case .slotStatus(let clock): byte9 = clock
        case .parameters(let parameters): byte9 = parameters.protocolNumber; payload = parameters.bytes
        case .escape(let data): payload = data
        case .dataRateAndClockFrequency(let clock, let rate):
            payload.appendLittleEndian(clock)
            payload.appendLittleEndian(rate)
        }
        CCIDFraming.encode(
            type: messageType, slot: slot, sequence: sequence,
            fields: (state.rawValue, errorCode, byte9), payload: payload, into: &bytes)
    }

    /// ``init(decoding:)`` of a frame the caller hands over: a DataBlock's data is the frame
    /// itself with the header removed in place, so a uniquely held frame is not copied (the
    /// driver's exchange path, one malloc less per message). Same checks, same result.
    init(decodingFrame frame: consuming [UInt8]) throws(CCIDFrameError) {
        guard try CCIDFraming.messageType(of: frame, commands: false) == .dataBlock else {
            try self.init(decoding: frame)
            return
        }
        let (slot, sequence, status, errorCode, chain) = (frame[5], frame[6], frame[7], frame[8], frame[9])
        var data = frame
        data.removeSubrange(0..<ccidHeaderLength)
        self.init(
            slot: slot, sequence: sequence, state: CCIDSlotState(rawValue: status), errorCode: errorCode,
            kind: .dataBlock(chainParameter: chain, data: data))
    }

    /// The bSlot of a bulk-IN frame when it decodes (``init(decoding:)`` would not throw), nil
    /// otherwise; a DataBlock, the frame of every exchange, is checked without copying its data.
    static func slot(ofDecodable frame: [UInt8]) -> UInt8? {
        guard let type = try? CCIDFraming.messageType(of: frame, commands: false) else { return nil }
        // A DataBlock's payload is any bytes: the header checks are all its decoding does.
        if type == .dataBlock { return frame[5] }
        return (try? CCIDResponse(decoding: frame))?.slot
    }

    /// Decodes a bulk-IN message, as the host does.
    public init(decoding bytes: [UInt8]) throws(CCIDFrameError) {
        let (type, payload) = try CCIDFraming.decode(bytes, commands: false)
        let byte9 = bytes[9]
        let state = CCIDSlotState(rawValue: bytes[7])
        let kind: Kind
        switch type {
        case .dataBlock: kind = .dataBlock(chainParameter: byte9, data: payload)
        case .slotStatus:
            guard payload.isEmpty else { throw .invalidPayloadLength(type, length: payload.count, expected: "0") }
            kind = .slotStatus(clockStatus: byte9)
        case .parameters:
            // A failed GetParameters may come back with an empty structure.
            if payload.isEmpty {
                kind = .parameters(.other(protocolNumber: byte9, data: []))
            } else {
                kind = .parameters(try CCIDProtocolParameters(protocolNumber: byte9, bytes: payload, in: type))
            }
        case .escapeResponse: kind = .escape(payload)
        case .dataRateAndClockFrequency:
            guard payload.count == 8 else { throw .invalidPayloadLength(type, length: payload.count, expected: "8") }
            kind = .dataRateAndClockFrequency(
                clockFrequency: payload.littleEndianUInt32(at: 0),
                dataRate: payload.littleEndianUInt32(at: 4))
        default: throw .unknownMessageType(bytes[0])
        }
        self.init(slot: bytes[5], sequence: bytes[6], state: state, errorCode: bytes[8], kind: kind)
    }
}
