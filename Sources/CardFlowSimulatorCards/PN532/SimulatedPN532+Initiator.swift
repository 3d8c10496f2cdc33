import CardFlowCrypto

// The PN532's initiator commands (UM0701-02 §7.3.5, §7.3.8, §7.3.9) against the card model in
// the field. ISO-DEP cards get APDUs (the PN532 runs ISO 14443-4 itself once it activated them);
// storage cards get raw frames through their reader pass-through (`FF 00 00 00 Lc D4 42 frame`,
// ``StorageRawFrameDialect``), so each model keeps its own frame rules.
extension SimulatedPN532 {
    /// InListPassiveTarget `MaxTg BrTy [InitiatorData]` → `NbTg [Tg target data]`.
    ///
    /// - 106 kbps type A (BrTy 0): `Tg SENS_RES(2) SEL_RES NFCIDLength NFCID [ATS]`, the ATS
    ///   (with TL) when fAutomaticRATS is set and the card speaks ISO-DEP.
    /// - FeliCa 212/424 (BrTy 1/2): `Tg POL_RES` (length, `01`, IDm, PMm, [system code]), the
    ///   card's own answer to the polling frame in InitiatorData.
    /// - 106 kbps type B (BrTy 3): `Tg ATQB(12) ATTRIB_RES length ATTRIB_RES`.
    ///
    /// No card of that kind: `NbTg 00`, and the CIU FIFO still holds the type A REQA (`26`).
    mutating func inListPassiveTarget(_ params: [UInt8], field: inout (any VirtualCard)?) -> [UInt8]? {
        guard params.count >= 2, (1...2).contains(params[0]) else { return nil }
        let modulation = params[1]
        let initiatorData = Array(params.dropFirst(2))
        guard modulation <= 0x08 else { return nil }
        target = nil
        pendingData = []
        controllerPolled = false
        if modulation == 0x00 { registers[0x6339] = 0x26 }
        guard var card = field else { return [0x00] }
        var found: [UInt8]?
        switch (modulation, card.technology) {
        case (0x00, .isoDepTypeA(let ats)):
            guard Self.matches(initiatorData, uid: card.uid) else { break }
            card.powerOn()
            let automatic = parameters & 0x10 != 0
            target = Target(kind: automatic ? .isoDEP : .typeA)
            found = Self.typeAIdentity(card) + (automatic ? ats : [])
        case (0x00, .storage(standard: 0x03, _)):
            guard Self.matches(initiatorData, uid: card.uid) else { break }
            card.powerOn()
            target = Target(kind: .typeA)
            found = Self.typeAIdentity(card)
        case (0x01, .storage(standard: 0x11, _)), (0x02, .storage(standard: 0x11, _)):
            guard initiatorData.count == 5, card.readerPassThroughInstructions.contains(0x00) else { break }
            card.powerOn()
            guard case .data(let answer) = Self.rawExchange(initiatorData, card: &card, lengthPrefixed: true),
                answer.count >= 18
            else { break }
            target = Target(kind: .felica)
            found = answer
        case (0x03, .isoDepTypeB(let applicationData, let protocolInfo, let mbli)):
            card.powerOn()
            target = Target(kind: .isoDEP)
            let atqb = [0x50] + card.uid.prefix(4) + applicationData.prefix(4) + protocolInfo.prefix(3)
            found = atqb + [0x01, (mbli & 0x0F) << 4]
        default:
            break
        }
        field = card
        guard let found else { return [0x00] }
        return [0x01, 0x01] + found
    }

    /// InDataExchange `Tg DataOut` → `Status DataIn` (§7.3.8). An ISO-DEP target takes the data
    /// as one APDU; an answer longer than a frame comes in parts, status bit 6 (MI) set while
    /// more follow, each fetched with a further InDataExchange. A MIFARE Classic target takes
    /// the MIFARE commands the PN532 runs Crypto1 for (`SimulatedPN532+MIFAREClassic.swift`).
    /// Other targets take the data as a raw frame: a 4-bit ACK becomes an empty DataIn, as the
    /// PN532 absorbs it, and the MIFARE write `A0 page data(16)` goes to the card in its two
    /// parts (the PN532 waits for the ACK of `A0 page` before it sends the data).
    mutating func inDataExchange(_ params: [UInt8], field: inout (any VirtualCard)?) -> [UInt8]? {
        guard let number = params.first else { return nil }
        guard number & 0x3F == 0x01, let target = currentTarget(field), var card = field else {
            return [Status.wrongContext]
        }
        let data = Array(params.dropFirst())
        defer { field = card }
        switch target.kind {
        case .isoDEP:
            if data.isEmpty && !pendingData.isEmpty { return nextPart() }
            guard !data.isEmpty else { return [Status.invalidParameter] }
            pendingData = card.process(data)
            return nextPart()
        case .typeA, .felica:
            if target.kind == .typeA, var classic = card as? SimulatedMIFAREClassicCard {
                let answer = Self.classicExchange(data, card: &classic)
                card = classic
                return answer
            }
            var frame = data
            if target.kind == .typeA, frame.count == 18, frame[0] == 0xA0 {
                let first = Self.rawExchange(Array(frame[0..<2]), card: &card, lengthPrefixed: false)
                guard first == .ack else { return Self.dataExchangeStatus(first) }
                frame.removeFirst(2)
            }
            // A FeliCa frame from the host carries its length byte already.
            return Self.dataExchangeStatus(Self.rawExchange(frame, card: &card, lengthPrefixed: false))
        }
    }

    /// What InDataExchange returns for a raw answer: the data, nothing for an ACK, the MIFARE
    /// error `14` for a NAK (§7.1: the PN532 reports a MIFARE card's refusal so), `01` for none.
    static func dataExchangeStatus(_ answer: RawAnswer) -> [UInt8] {
        switch answer {
        case .data(let bytes): [0x00] + bytes
        case .ack: [0x00]
        case .nak: [Status.authentication]
        case .silence: [Status.timeout]
        }
    }

    /// The largest DataIn one InDataExchange answer carries: the ACR122U's CCID answer holds
    /// `D5 41 Status DataIn 90 00` in a one-byte length (libnfc and nfcpy read it so).
    static let maxDataIn = 250

    private mutating func nextPart() -> [UInt8] {
        let part = Array(pendingData.prefix(Self.maxDataIn))
        pendingData.removeFirst(part.count)
        return [pendingData.isEmpty ? 0x00 : Status.moreInformation] + part
    }

    /// InCommunicateThru `DataOut` → `Status DataIn` (§7.3.9): the frame goes to the card as
    /// it is. ISO-DEP cards see the host's own ISO 14443-4 blocks (RATS, I-, R-, S-blocks);
    /// storage cards see the frame. With RxCRCEn (CIU_RxMode bit 7) cleared the answer keeps
    /// its CRC_A, as the CIU then leaves it in the FIFO.
    mutating func inCommunicateThru(_ params: [UInt8], field: inout (any VirtualCard)?) -> [UInt8]? {
        guard !params.isEmpty else { return nil }
        guard var card = field, var current = currentTarget(field) else { return [Status.timeout] }
        defer { field = card }
        let answer: RawAnswer
        if card.technology.isISODEP {
            answer = current.blocks.receive(params, card: &card).map(RawAnswer.data) ?? .silence
            target = current
        } else {
            answer = Self.rawExchange(params, card: &card, lengthPrefixed: false)
        }
        switch answer {
        case .data(let bytes):
            let crcKept = registers[0x6303, default: 0x80] & 0x80 == 0
            return [0x00] + bytes + (crcKept && current.kind != .felica ? CRC16A.bytes(bytes) : [])
        case .ack, .nak:
            // A 4-bit frame carries no CRC_A, so while the CIU checks CRCs (RxCRCEn, CIU_RxMode
            // bit 7, on after reset) it fails the check and InCommunicateThru reports the CRC
            // error (UM0701-02 §7.1, error code 02): ACK and NAK alike. nfcpy clears RxCRCEn
            // for Type 2 tags to see them; then the 4 bits come as one byte.
            if registers[0x6303, default: 0x80] & 0x80 != 0 { return [Status.crc] }
            guard case .nak(let nibble) = answer else { return [0x00, 0x0A] }
            return [0x00, nibble]
        case .silence: return [Status.timeout]
        }
    }

    /// What a card answered to a raw frame.
    enum RawAnswer: Equatable {
        case data([UInt8])
        case ack
        case nak(UInt8)
        case silence
    }

    /// Sends `frame` through the card's reader pass-through and reads its answer back.
    /// FeliCa frames carry their own length byte first.
    static func rawExchange(_ frame: [UInt8], card: inout any VirtualCard, lengthPrefixed: Bool) -> RawAnswer {
        guard card.readerPassThroughInstructions.contains(0x00) else { return .silence }
        let sent = lengthPrefixed ? [UInt8(truncatingIfNeeded: frame.count + 1)] + frame : frame
        // The pass-through pseudo-APDU carries at most 255 bytes: D4 42 and the frame.
        guard sent.count <= 253 else { return .silence }
        let command = [0xFF, 0x00, 0x00, 0x00, UInt8(truncatingIfNeeded: sent.count + 2), 0xD4, 0x42] + sent
        let reply = card.process(command)
        guard reply.count >= 5, reply[0] == 0xD5, reply[1] == 0x43, reply.suffix(2) == [0x90, 0x00],
            reply[2] == 0x00
        else { return .silence }
        let data = Array(reply[3..<reply.count - 2])
        if data.count == 1, data[0] & 0xF0 == 0 {
            // A 4-bit answer: ACK (A) or one of the Type 2 NAKs.
            return data[0] == 0x0A ? .ack : .nak(data[0])
        }
        if lengthPrefixed { return data.isEmpty ? .silence : .data(data) }
        return .data(data)
    }

    /// Whether InitiatorData (a UID, possibly with cascade tags `88`) selects this card.
    static func matches(_ initiatorData: [UInt8], uid: [UInt8]) -> Bool {
        guard !initiatorData.isEmpty else { return true }
        var wanted = initiatorData
        if wanted.count > 4, wanted[0] == 0x88 { wanted.removeFirst() }
        if wanted.count > 7, wanted[3] == 0x88 { wanted.remove(at: 3) }
        return wanted == uid
    }

    /// SENS_RES, SEL_RES and the NFCID of a type A card, from its kind: the UID size in
    /// SENS_RES bits 7-8 (ISO/IEC 14443-3 §6.5.2); SEL_RES `20` for ISO-DEP, and the MIFARE
    /// values for storage cards (Classic 1K `00 04`/`08`, 4K `00 02`/`18`, Ultralight and NTAG
    /// `00 44`/`00`, NXP AN10833).
    static func typeAIdentity(_ card: any VirtualCard) -> [UInt8] {
        let uid = Array(card.uid.prefix(10))
        let sizeBits: UInt8 =
            switch uid.count {
            case 7: 0x40
            case 10: 0x80
            default: 0x00
            }
        let sensRes: [UInt8]
        let selRes: UInt8
        switch card.technology {
        case .storage(_, 0x0001):
            (sensRes, selRes) = ([0x00, sizeBits | 0x04], 0x08)
        case .storage(_, 0x0002):
            (sensRes, selRes) = ([0x00, sizeBits | 0x02], 0x18)
        case .storage:
            (sensRes, selRes) = ([0x00, sizeBits | 0x04], 0x00)
        default:
            (sensRes, selRes) = (card.kind == "desfire" ? [0x03, sizeBits | 0x04] : [0x00, sizeBits | 0x04], 0x20)
        }
        return sensRes + [selRes, UInt8(truncatingIfNeeded: uid.count)] + uid
    }
}
