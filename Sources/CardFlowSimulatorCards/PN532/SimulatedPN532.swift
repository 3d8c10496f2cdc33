/// An NXP PN532 as a host drives it (PN532 user manual UM0701-02, §7): the frames between
/// the direction bytes `D4` (host to PN532) and `D5` (PN532 to host), without the link-layer
/// preamble, length and checksum, which the reader's controller handles.
///
/// Commands (§7.2, §7.3): Diagnose `00` (communication line test), GetFirmwareVersion `02`
/// (`32 01 06 07`: PN532 v1.6, ISO 14443 A and B and ISO 18092), GetGeneralStatus `04`,
/// ReadRegister `06` / WriteRegister `08` (a register file that keeps what the host writes),
/// SetParameters `12`, SAMConfiguration `14`, PowerDown `16`, RFConfiguration `32` and the
/// initiator commands in `SimulatedPN532+Initiator.swift`. Other commands and malformed
/// parameters get the application-level error frame, which the ACR122U reports as `63 7F`
/// (modelled as the answer `nil` there, see ``answer(_:field:)``).
public struct SimulatedPN532: Sendable {
    /// The register file (CIU registers at `6301`–`633F`, SFRs at `FFxx`).
    public internal(set) var registers: [UInt16: UInt8] = Self.resetRegisters
    /// The SetParameters flags; bit 4 (fAutomaticRATS) makes InListPassiveTarget activate
    /// ISO-DEP cards itself.
    public internal(set) var parameters: UInt8 = 0x14
    /// The target the PN532 activated (InListPassiveTarget), if any.
    public internal(set) var target: Target?
    /// A response InDataExchange could not return at once (more than one frame).
    var pendingData: [UInt8] = []
    /// Whether the card in the field is still the one the reader's controller found by its own
    /// polling (PICC operating parameter): a PC/SC application never lists targets, yet its
    /// InCommunicateThru reaches the card. Listing, releasing or switching the field off ends it.
    var controllerPolled = true

    /// One activated target.
    public struct Target: Sendable, Hashable {
        public enum Kind: Sendable, Hashable {
            /// ISO/IEC 14443-3 type A; ISO-DEP cards not yet activated at layer 4 are here too.
            case typeA
            /// Activated at ISO/IEC 14443-4 by the PN532 (RATS or ATTRIB): InDataExchange carries APDUs.
            case isoDEP
            /// FeliCa at 212 or 424 kbps.
            case felica
        }

        /// What the PN532 activated the card as.
        public var kind: Kind
        /// The card side of ISO-DEP blocks the host sends itself through InCommunicateThru.
        var blocks = ISODEPCardBlocks()
    }

    /// Registers the hosts read: RF off, CRC on both ways (CIU_TxMode `6302` / CIU_RxMode `6303`
    /// bit 7, TxCRCEn / RxCRCEn, set after reset), the CIU version; every other register reads
    /// 00. A PC/SC application behind the ACR122U's controller finds them so too.
    static let resetRegisters: [UInt16: UInt8] = [
        0x6301: 0x3B, 0x6302: 0x80, 0x6303: 0x80, 0x6304: 0x80, 0x6305: 0x00, 0x6327: 0x00,
    ]

    /// Status bytes (§7.1).
    enum Status {
        static let timeout: UInt8 = 0x01
        static let crc: UInt8 = 0x02
        static let invalidParameter: UInt8 = 0x10
        static let authentication: UInt8 = 0x14
        static let wrongContext: UInt8 = 0x27
        static let moreInformation: UInt8 = 0x40
    }

    /// A PN532 after power-on: no target, RF off, the reset register values.
    public init() {}

    /// The card in the field changed: the activated target is gone.
    public mutating func fieldChanged() {
        target = nil
        pendingData = []
        controllerPolled = true
    }

    /// The target commands address: the listed one, else the card the controller polled.
    mutating func currentTarget(_ field: (any VirtualCard)?) -> Target? {
        if let target { return target }
        guard controllerPolled, let card = field else { return nil }
        let kind: Target.Kind =
            switch card.technology {
            case .isoDepTypeA, .isoDepTypeB: .isoDEP
            case .storage(standard: 0x11, _): .felica
            default: .typeA
            }
        target = Target(kind: kind)
        return target
    }

    /// The PN532's answer (`D5 …`) to `frame` (`D4 cmd params`); nil for the error frame
    /// (syntax error, unknown command).
    public mutating func answer(_ frame: [UInt8], field: inout (any VirtualCard)?) -> [UInt8]? {
        guard frame.count >= 2, frame[0] == 0xD4 else { return nil }
        let command = frame[1]
        let params = Array(frame.dropFirst(2))
        guard let data = answer(command: command, params: params, field: &field) else { return nil }
        return [0xD5, command &+ 1] + data
    }

    mutating func answer(command: UInt8, params: [UInt8], field: inout (any VirtualCard)?) -> [UInt8]? {
        switch command {
        case 0x00:
            // Communication line test: the answer repeats NumTst and the data.
            guard params.first == 0x00 else { return nil }
            return params
        case 0x02:
            return params.isEmpty ? [0x32, 0x01, 0x06, 0x07] : nil
        case 0x04:
            return generalStatus()
        case 0x06:
            guard !params.isEmpty, params.count % 2 == 0 else { return nil }
            return stride(from: 0, to: params.count, by: 2).map {
                register(UInt16(params[$0]) << 8 | UInt16(params[$0 + 1]))
            }
        case 0x08:
            guard !params.isEmpty, params.count % 3 == 0 else { return nil }
            for offset in stride(from: 0, to: params.count, by: 3) {
                let address = UInt16(params[offset]) << 8 | UInt16(params[offset + 1])
                registers[address] = params[offset + 2]
            }
            return []
        case 0x12:
            guard params.count == 1 else { return nil }
            parameters = params[0]
            return []
        case 0x14:
            guard let mode = params.first, (0x01...0x04).contains(mode) else { return nil }
            return []
        case 0x16:
            guard !params.isEmpty else { return nil }
            return [0x00]
        case 0x32:
            return rfConfiguration(params, field: &field)
        case 0x4A:
            return inListPassiveTarget(params, field: &field)
        case 0x40:
            return inDataExchange(params, field: &field)
        case 0x42:
            return inCommunicateThru(params, field: &field)
        case 0x44, 0x52, 0x54:
            return targetControl(command, params)
        default:
            return nil
        }
    }

    func register(_ address: UInt16) -> UInt8 {
        if address == 0x6304 {
            // TxControl bits 0-1 drive the antenna: on while a field is up.
            return (registers[address] ?? 0) & 0xFC | (fieldOn ? 0x03 : 0x00)
        }
        return registers[address] ?? 0
    }

    /// Whether the RF field is on (RFConfiguration item 1, or a target in the field).
    var fieldOn: Bool { registers[0x6304, default: 0] & 0x03 != 0 || target != nil }

    /// GetGeneralStatus (§7.2.3): Err, Field, NbTg, then per target Tg BrRx BrTx Type, SAM status.
    func generalStatus() -> [UInt8] {
        var status: [UInt8] = [0x00, fieldOn ? 0x01 : 0x00, target == nil ? 0x00 : 0x01]
        if let target {
            let (bitRate, type): (UInt8, UInt8) =
                switch target.kind {
                case .felica: (0x01, 0x10)
                case .typeA, .isoDEP: (0x00, 0x00)
                }
            status += [0x01, bitRate, bitRate, type]
        }
        return status + [0x00]
    }

    /// RFConfiguration (§7.3.1): item 1 switches the field (bit 0), items 2, 4, 5 and the
    /// analog settings 0A–0D are accepted as they come.
    mutating func rfConfiguration(_ params: [UInt8], field: inout (any VirtualCard)?) -> [UInt8]? {
        guard let item = params.first else { return nil }
        let values = params.dropFirst()
        let expected: [UInt8: Int] = [0x01: 1, 0x02: 3, 0x04: 1, 0x05: 3, 0x0A: 11, 0x0B: 8, 0x0C: 3, 0x0D: 9]
        guard let count = expected[item], values.count == count else { return nil }
        if item == 0x01 {
            let on = values.first.map { $0 & 0x01 != 0 } ?? false
            var control = registers[0x6304, default: 0x80] & 0xFC
            if on {
                control |= 0x03
            } else {
                fieldChanged()
                controllerPolled = false
            }
            registers[0x6304] = control
        }
        return []
    }

    /// InDeselect `44`, InRelease `52`, InSelect `54` with Tg (§7.3.11–13): status `00`, or
    /// `27` for a target number the PN532 does not know.
    mutating func targetControl(_ command: UInt8, _ params: [UInt8]) -> [UInt8]? {
        guard params.count == 1 else { return nil }
        let number = params[0]
        if controllerPolled, target == nil, command == 0x52 { controllerPolled = false }
        // Tg 0 means every target for InDeselect and InRelease.
        guard number == 0x01 || (number == 0x00 && command != 0x54) else { return [Status.wrongContext] }
        guard target != nil else { return [number == 0x00 ? 0x00 : Status.wrongContext] }
        if command == 0x52 {
            target = nil
            pendingData = []
            controllerPolled = false
        }
        return [0x00]
    }
}
