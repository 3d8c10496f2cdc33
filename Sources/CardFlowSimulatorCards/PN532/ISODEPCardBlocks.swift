/// The card side of ISO/IEC 14443-4 block transmission, for hosts that run ISO-DEP themselves
/// through the PN532's InCommunicateThru (nfcpy does): RATS → ATS, I-blocks with chaining
/// both ways, R(ACK)/R(NAK), S(DESELECT). Frames are without CRC (the CIU adds and checks it).
///
/// From ISO/IEC 14443-4: PCB `02`/`03` I-block (bit 5 chaining, bit 4 CID follows, bit 3 NAD
/// follows, bit 1 block number), `A2`/`A3` R(ACK), `B2`/`B3` R(NAK), `C2` S(DESELECT),
/// `F2` S(WTX); RATS `E0 FSDI|CID` with the frame sizes FSD of its table.
struct ISODEPCardBlocks: Sendable, Hashable {
    /// Whether RATS activated the card.
    private(set) var active = false
    /// The largest frame the host takes (FSD, from RATS), CRC included.
    private var frameSize = 256
    /// Command blocks received so far of a chained command.
    private var command: [UInt8] = []
    /// Response bytes not yet sent (chained response).
    private var response: [UInt8] = []
    /// The last block sent, for R(NAK).
    private var lastBlock: [UInt8] = []

    static let frameSizes = [16, 24, 32, 40, 48, 64, 96, 128, 256]

    /// The card's block in answer to `frame`, or nil when the card stays silent.
    mutating func receive(_ frame: [UInt8], card: inout any VirtualCard) -> [UInt8]? {
        guard let pcb = frame.first else { return nil }
        guard active else {
            // Only RATS activates; anything else gets no answer at layer 4.
            guard frame.count == 2, pcb == 0xE0, case .isoDepTypeA(let ats) = card.technology else { return nil }
            active = true
            frameSize = Self.frameSizes[min(Int(frame[1] >> 4), Self.frameSizes.count - 1)]
            command = []
            response = []
            return ats
        }
        let hasCID = pcb & 0x08 != 0
        let prologue = hasCID && frame.count >= 2 ? [pcb, frame[1]] : [pcb]
        let cid = hasCID && frame.count >= 2 ? [frame[1]] : []
        switch pcb & 0xE2 {
        case 0x02:
            // An I-block; a NAD byte (bit 3) is skipped.
            let headerLength = prologue.count + (pcb & 0x04 != 0 ? 1 : 0)
            guard frame.count >= headerLength else { return nil }
            command += frame.dropFirst(headerLength)
            let number = pcb & 0x01
            if pcb & 0x10 != 0 {
                return send([0xA2 | number | (hasCID ? 0x08 : 0)] + cid)
            }
            response = card.process(command)
            command = []
            return nextBlock(number: number, cid: cid)
        case 0xA2:
            let number = pcb & 0x01
            if pcb & 0x10 != 0 {
                // R(NAK): the last block again.
                return lastBlock.isEmpty ? nil : lastBlock
            }
            return response.isEmpty ? nil : nextBlock(number: number, cid: cid)
        case 0xC2:
            if pcb & 0x30 == 0x00 {
                // S(DESELECT): the card answers and leaves layer 4.
                active = false
                return send(prologue)
            }
            return nil
        default:
            return nil
        }
    }

    /// The next I-block of the response with this block number.
    private mutating func nextBlock(number: UInt8, cid: [UInt8]) -> [UInt8] {
        let header = 1 + cid.count
        let room = max(frameSize - header - 2, 1)
        let part = Array(response.prefix(room))
        response.removeFirst(part.count)
        let chaining: UInt8 = response.isEmpty ? 0x00 : 0x10
        return send([0x02 | number | chaining | (cid.isEmpty ? 0 : 0x08)] + cid + part)
    }

    private mutating func send(_ block: [UInt8]) -> [UInt8] {
        lastBlock = block
        return block
    }
}
