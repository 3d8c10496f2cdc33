/// The bStatus byte of every bulk-IN message: ICC state and command state (CCID 6.2.6).
public struct CCIDSlotState: Sendable, Hashable, CustomStringConvertible {
    /// bmICCStatus, bits 0-1.
    public enum ICCStatus: UInt8, Sendable {
        case presentActive = 0
        case presentInactive = 1
        case absent = 2
        case reserved = 3
    }

    /// bmCommandStatus, bits 6-7.
    public enum CommandStatus: UInt8, Sendable {
        case processed = 0
        case failed = 1
        /// The reader needs more time; bError is then the time extension multiplier.
        case timeExtension = 2
        case reserved = 3
    }

    /// The raw bStatus byte.
    public var rawValue: UInt8

    public init(rawValue: UInt8) { self.rawValue = rawValue }

    public init(icc: ICCStatus, command: CommandStatus) {
        rawValue = icc.rawValue | command.rawValue << 6
    }

    public var icc: ICCStatus { ICCStatus(rawValue: rawValue & 0x03)! }
    public var command: CommandStatus { CommandStatus(rawValue: rawValue >> 6)! }

    public var description: String { "bStatus 0x\(hex2(rawValue)) (ICC \(icc), command \(command))" }
}

/// bError of a failed command (CCID table 6.2-2), typed.
public enum CCIDSlotError: Sendable, Hashable, CustomStringConvertible {
    case commandAborted
    /// The reader timed out talking to the card; on contactless readers: no tag in the field.
    case iccMute
    case parityError
    case overrun
    case hardwareError
    case badATRTS
    case badATRTCK
    case protocolNotSupported
    case classNotSupported
    case procedureByteConflict
    case deactivatedProtocol
    case busyWithAutoSequence
    case pinTimeout
    case pinCancelled
    case slotBusy
    /// bError 0: the reader does not support the command.
    case commandNotSupported
    /// bError 1...0x7F: offset of the offending byte in the command.
    case badParameter(offset: UInt8)
    /// 0x81...0xC0 and other undefined values: vendor specific.
    case vendorSpecific(UInt8)

    public init(rawValue: UInt8) {
        switch rawValue {
        case 0xFF: self = .commandAborted
        case 0xFE: self = .iccMute
        case 0xFD: self = .parityError
        case 0xFC: self = .overrun
        case 0xFB: self = .hardwareError
        case 0xF8: self = .badATRTS
        case 0xF7: self = .badATRTCK
        case 0xF6: self = .protocolNotSupported
        case 0xF5: self = .classNotSupported
        case 0xF4: self = .procedureByteConflict
        case 0xF3: self = .deactivatedProtocol
        case 0xF2: self = .busyWithAutoSequence
        case 0xF0: self = .pinTimeout
        case 0xEF: self = .pinCancelled
        case 0xE0: self = .slotBusy
        case 0x00: self = .commandNotSupported
        case 0x01...0x7F: self = .badParameter(offset: rawValue)
        default: self = .vendorSpecific(rawValue)
        }
    }

    public var rawValue: UInt8 {
        switch self {
        case .commandAborted: 0xFF
        case .iccMute: 0xFE
        case .parityError: 0xFD
        case .overrun: 0xFC
        case .hardwareError: 0xFB
        case .badATRTS: 0xF8
        case .badATRTCK: 0xF7
        case .protocolNotSupported: 0xF6
        case .classNotSupported: 0xF5
        case .procedureByteConflict: 0xF4
        case .deactivatedProtocol: 0xF3
        case .busyWithAutoSequence: 0xF2
        case .pinTimeout: 0xF0
        case .pinCancelled: 0xEF
        case .slotBusy: 0xE0
        case .commandNotSupported: 0x00
        case .badParameter(let offset): offset
        case .vendorSpecific(let code): code
        }
    }

    public var description: String {
        switch self {
        case .commandAborted: "command aborted by the host (0xFF)"
        case .iccMute: "card mute or absent (ICC_MUTE 0xFE)"
        case .parityError: "parity error talking to the card (0xFD)"
        case .overrun: "overrun talking to the card (0xFC)"
        case .hardwareError: "reader hardware error (0xFB)"
        case .badATRTS: "invalid ATR TS byte (0xF8)"
        case .badATRTCK: "invalid ATR checksum (0xF7)"
        case .protocolNotSupported: "card protocol not supported (0xF6)"
        case .classNotSupported: "card class not supported (0xF5)"
        case .procedureByteConflict: "procedure byte conflict (0xF4)"
        case .deactivatedProtocol: "protocol deactivated (0xF3)"
        case .busyWithAutoSequence: "reader busy with an automatic sequence (0xF2)"
        case .pinTimeout: "PIN entry timed out (0xF0)"
        case .pinCancelled: "PIN entry cancelled (0xEF)"
        case .slotBusy: "slot busy with another command (0xE0)"
        case .commandNotSupported: "command not supported by the reader (0x00)"
        case .badParameter(let offset): "reader rejected the byte at offset \(offset) of the command"
        case .vendorSpecific(let code): "vendor-specific reader error 0x\(hex2(code))"
        }
    }
}
