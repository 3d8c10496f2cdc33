// Card half of the T=1 block protocol (ISO/IEC 7816-3 §11), for the virtual readers.
//
// Written from the standard independently of CCID's T1HostProtocol and T1Block on purpose: it has
// its own block parser and EDC so that a mistake in the host's codec or state machine shows up
// as a failed exchange instead of being mirrored here. Only the `T1Checksum` enum is shared, as a
// name for the EDC kind.

import CardFlowCCIDProtocol

/// What the card endpoint asks its owner (the virtual reader) to do after a host block.
public enum T1CardEvent: Sendable, Hashable {
    /// Send this block to the host.
    case send([UInt8])
    /// The host's whole command APDU has arrived. The card now has the turn: call
    /// ``T1CardEndpoint/respond(with:)``, or ``T1CardEndpoint/requestWaitingTimeExtension(multiplier:)``
    /// first.
    case commandComplete([UInt8])
    /// The host granted the waiting time extension asked for with S(WTX request); the card still
    /// has the turn: call ``T1CardEndpoint/respond(with:)`` (or ask for more time).
    case waitingTimeExtensionGranted(multiplier: UInt8)
}

/// The card side of T=1: assembles chained commands, chains responses by IFSD, answers S-blocks,
/// resends on request and recovers from errors per ISO/IEC 7816-3 rule 7, byte-exact so that host
/// mistakes are visible.
///
/// Fault injection for tests of host error recovery: ``corruptNextBlockChecksum()`` and
/// ``corruptChecksumOfNextBlocks(_:)``; ``scheduleInformationFieldSizeRequest(_:)`` makes the card
/// change its IFSC in the middle of an exchange.
public struct T1CardEndpoint: Sendable {
    /// The EDC both sides use.
    public let checksum: T1Checksum
    /// NAD the host puts in its blocks; the card answers with it nibble-swapped.
    public let hostNodeAddress: UInt8
    /// IFSC announced in the ATR (TA3), restored by ``reset()``.
    public let initialIFSC: Int
    /// IFSD assumed until the host sends S(IFS request), restored by ``reset()``.
    public let initialIFSD: Int

    /// Largest INF the card accepts in one host I-block.
    public private(set) var ifsc: Int
    /// Largest INF the card puts in one I-block to the host.
    public private(set) var ifsd: Int
    /// N(S) of the next new I-block the card sends.
    public private(set) var sendSequence: UInt8 = 0
    /// N(S) the card expects in the host's next I-block.
    public private(set) var expectedSequence: UInt8 = 0
    /// Blocks still to be sent with a corrupted EDC.
    public private(set) var corruptedBlocksRemaining = 0

    private enum Stage: Sendable, Hashable {
        /// Waiting for the first block of a command (or anything else from the host).
        case idle
        /// Acknowledged a chained host I-block; more of the command is due.
        case receivingCommand
        /// The command is complete; the card has the turn.
        case processing
        /// Sent a chained response I-block; waiting for the host's R-block.
        case sendingResponse
        /// Sent S(IFS request) or S(WTX request); waiting for the matching response.
        case awaitingSupervisoryResponse(requestPCB: UInt8, value: UInt8)
    }

    private var stage: Stage = .idle
    /// The command being gathered. Its storage is kept from one command to the next, so a
    /// command costs no allocation once the card's owner has let go of the last one (issue 40).
    private var command: [UInt8] = []
    private var response: [UInt8] = []
    private var responseOffset = 0
    /// Last block sent, uncorrupted (resent under rules 7.2 and 7.3).
    private var lastSent: [UInt8] = []
    /// Last I-block sent and its N(S), for retransmission on the host's request.
    private var lastInformationBlock: [UInt8] = []
    private var lastInformationSequence: UInt8 = 0
    /// True after the last block of a response until the host's next I-block: the host may
    /// still ask for that block again.
    private var finalResponseBlockRetransmittable = false
    /// The outstanding S-request (rule 7.3 resends it).
    private var pendingRequest: [UInt8] = []
    /// The block the card was about to send when it interposed S(IFS request), and the stage it
    /// belongs to.
    private var deferredBlock: [UInt8] = []
    private var deferredStage: Stage = .idle
    private var scheduledIFSC: UInt8?
    /// Storage for the next block: the block sent before the last one, which the card needs no
    /// more. The reader frames a copy of every block, so this storage is the card's alone again
    /// by the next block and each block is written without allocating (issue 40).
    private var spareBlock: [UInt8] = []

    /// Creates the card side.
    ///
    /// - Parameters:
    ///   - ifsc: the card's IFSC (its ATR's TA3); 1...254.
    ///   - checksum: LRC, or CRC when the ATR says so.
    ///   - initialIFSD: IFSD before any S(IFS request) from the host (32 per ISO/IEC 7816-3).
    ///   - hostNodeAddress: NAD expected from the host.
    public init(ifsc: Int = 254, checksum: T1Checksum = .lrc, initialIFSD: Int = 32, hostNodeAddress: UInt8 = 0) {
        precondition((1...254).contains(ifsc), "IFSC must be 1...254")
        precondition((1...254).contains(initialIFSD), "IFSD must be 1...254")
        self.checksum = checksum
        self.hostNodeAddress = hostNodeAddress
        self.initialIFSC = ifsc
        self.initialIFSD = initialIFSD
        self.ifsc = ifsc
        self.ifsd = initialIFSD
    }

    /// Back to the state right after the ATR (card power-on or reset); pending faults are
    /// dropped too.
    public mutating func reset() {
        self = T1CardEndpoint(
            ifsc: initialIFSC, checksum: checksum, initialIFSD: initialIFSD, hostNodeAddress: hostNodeAddress)
    }

    // MARK: - Driving the card

    /// Processes one block from the host.
    public mutating func receive(_ bytes: [UInt8]) -> T1CardEvent {
        receive(bytes[...])
    }

    /// Processes one block from the host, read where it lies (a slice of the message that
    /// carried it): the card copies only the command's bytes, into storage it keeps.
    public mutating func receive(_ bytes: ArraySlice<UInt8>) -> T1CardEvent {
        if stage == .processing {
            // The host spoke while the card had the turn; a real card would not be listening.
            // The command is dropped and the block handled as if the card were idle.
            stage = .idle
            command.removeAll(keepingCapacity: true)
        }
        switch parse(bytes) {
        case .invalid(let checksumError):
            return .send(answerInvalidBlock(errorCode: checksumError ? 1 : 2))
        case .information(let sequence, let more, let information):
            return informationReceived(sequence: sequence, more: more, information: bytes[information])
        case .receiveReady(let sequence):
            return .send(receiveReadyReceived(sequence: sequence))
        case .supervisory(let pcb, let information):
            return supervisoryReceived(pcb: pcb, information: bytes[information])
        }
    }

    /// Starts sending the response APDU, chained by IFSD; returns the first block. Only valid
    /// after ``T1CardEvent/commandComplete(_:)`` or ``T1CardEvent/waitingTimeExtensionGranted(multiplier:)``.
    public mutating func respond(with responseAPDU: [UInt8]) -> [UInt8] {
        precondition(stage == .processing, "respond(with:) needs a complete command and no outstanding S-request")
        response = responseAPDU
        responseOffset = 0
        return sendNextResponseBlock()
    }

    /// Asks the host for more time with S(WTX request) instead of answering now. Only valid while
    /// the card has the turn (after ``T1CardEvent/commandComplete(_:)`` or a granted extension).
    /// The host must answer S(WTX response) with the same multiplier, which yields
    /// ``T1CardEvent/waitingTimeExtensionGranted(multiplier:)``.
    public mutating func requestWaitingTimeExtension(multiplier: UInt8) -> [UInt8] {
        precondition(stage == .processing, "S(WTX request) needs the card to have the turn")
        return sendRequest(pcb: 0xC3, value: multiplier, deferring: [], resumeStage: .processing)
    }

    /// Makes the card send S(IFS request) with `newIFSC` the next time it would send an
    /// acknowledgement or response I-block; once the host echoes it in S(IFS response) the card
    /// uses the new IFSC and sends the block it held back.
    public mutating func scheduleInformationFieldSizeRequest(_ newIFSC: Int) {
        precondition((1...254).contains(newIFSC), "IFSC must be 1...254")
        scheduledIFSC = UInt8(newIFSC)
    }

    // MARK: - Fault injection

    /// The next block the card sends carries a wrong EDC (retransmissions are clean again).
    public mutating func corruptNextBlockChecksum() {
        corruptChecksumOfNextBlocks(1)
    }

    /// The next `count` blocks the card sends carry a wrong EDC.
    public mutating func corruptChecksumOfNextBlocks(_ count: Int) {
        corruptedBlocksRemaining += max(count, 0)
    }

    // MARK: - Handling host blocks

    /// The longest command APDU the card takes through T=1 chaining (an extended APDU).
    public static let maximumCommandLength = 65_544

    /// CLA INS P1 P2, Lc, 255 data bytes and Le.
    private static let longestShortCommand = 261

    /// NAD PCB LEN, the longest INF and a CRC: every block fits in storage of this size.
    private static let longestBlock = 3 + 254 + 2

    /// An I-block from the host carrying `information`.
    private mutating func informationReceived(sequence: UInt8, more: Bool, information: ArraySlice<UInt8>)
        -> T1CardEvent
    {
        switch stage {
        case .idle, .receivingCommand:
            guard sequence == expectedSequence, information.count <= ifsc else {
                return .send(answerInvalidBlock(errorCode: 2))
            }
            if stage == .idle {
                command.removeAll(keepingCapacity: true)
                // A chained command is most often a short APDU: room for the longest one at once.
                if more { command.reserveCapacity(Self.longestShortCommand) }
            }
            guard command.count + information.count <= Self.maximumCommandLength else {
                // A host that chains without end must not grow the card's memory: like a card
                // whose buffer is full, drop the command and refuse the block.
                command = []
                stage = .idle
                return .send(answerInvalidBlock(errorCode: 2))
            }
            command += information
            expectedSequence ^= 1
            // The host's I-block acknowledges the card's last response block, which is let go
            // (its storage can take the card's next block).
            finalResponseBlockRetransmittable = false
            lastInformationBlock = []
            if more {
                return .send(
                    sendNew(receiveReadyBlock(sequence: expectedSequence, errorCode: 0), stage: .receivingCommand))
            }
            stage = .processing
            return .commandComplete(command)
        case .processing, .sendingResponse, .awaitingSupervisoryResponse:
            // While the card chains its response the host may only send R-blocks (rule 5).
            return .send(answerInvalidBlock(errorCode: 2))
        }
    }

    private mutating func receiveReadyReceived(sequence: UInt8) -> [UInt8] {
        switch stage {
        case .sendingResponse:
            if sequence == lastInformationSequence {
                return emit(lastInformationBlock)
            }
            return sendNextResponseBlock()
        case .idle where finalResponseBlockRetransmittable && sequence == lastInformationSequence:
            return emit(lastInformationBlock)
        case .idle, .receivingCommand, .processing, .awaitingSupervisoryResponse:
            return answerInvalidBlock(errorCode: 2)
        }
    }

    private mutating func supervisoryReceived(pcb: UInt8, information: ArraySlice<UInt8>) -> T1CardEvent {
        switch pcb {
        case 0xC0 where information.isEmpty:
            // RESYNCH: both sides start again from N(S) = N(R) = 0; everything pending is dropped.
            let keptIFSC = ifsc
            let keptIFSD = ifsd
            let keptFaults = corruptedBlocksRemaining
            reset()
            ifsc = keptIFSC
            ifsd = keptIFSD
            corruptedBlocksRemaining = keptFaults
            return .send(emit(supervisoryBlock(pcb: 0xE0, information: [])))
        case 0xC1 where information.count == 1 && (1...254).contains(information.first ?? 0):
            if case .awaitingSupervisoryResponse = stage { break }
            ifsd = Int(information.first ?? 0)
            return .send(emit(supervisoryBlock(pcb: 0xE1, information: information)))
        case 0xC2 where information.isEmpty:
            stage = .idle
            command.removeAll(keepingCapacity: true)
            response = []
            finalResponseBlockRetransmittable = false
            return .send(emit(supervisoryBlock(pcb: 0xE2, information: [])))
        case 0xE3:
            if stage == .awaitingSupervisoryResponse(requestPCB: 0xC3, value: information.first ?? 0),
                information.count == 1
            {
                stage = .processing
                pendingRequest = []
                return .waitingTimeExtensionGranted(multiplier: information.first ?? 0)
            }
        case 0xE1:
            if stage == .awaitingSupervisoryResponse(requestPCB: 0xC1, value: information.first ?? 0),
                information.count == 1
            {
                ifsc = Int(information.first ?? 0)
                pendingRequest = []
                stage = deferredStage
                let block = deferredBlock
                deferredBlock = []
                return .send(emit(block))
            }
        default:
            break
        }
        return .send(answerInvalidBlock(errorCode: 2))
    }

    /// Rule 7: resend the outstanding S-request (7.3) or the last R-block (7.2), else ask for the
    /// expected I-block with an R-block carrying the error.
    private mutating func answerInvalidBlock(errorCode: UInt8) -> [UInt8] {
        if case .awaitingSupervisoryResponse = stage {
            return emit(pendingRequest)
        }
        if lastSent.count > 1 && lastSent[1] & 0xC0 == 0x80 {
            return emit(lastSent)
        }
        return emit(receiveReadyBlock(sequence: expectedSequence, errorCode: errorCode))
    }

    // MARK: - Sending

    private mutating func sendNextResponseBlock() -> [UInt8] {
        let remaining = response.count - responseOffset
        let length = min(remaining, ifsd)
        let more = remaining > length
        var pcb: UInt8 = sendSequence << 6
        if more { pcb |= 0x20 }
        let block = frame(pcb: pcb, information: response[responseOffset..<(responseOffset + length)])
        responseOffset += length
        lastInformationBlock = block
        lastInformationSequence = sendSequence
        sendSequence ^= 1
        if more {
            return sendNew(block, stage: .sendingResponse)
        }
        response = []
        responseOffset = 0
        finalResponseBlockRetransmittable = true
        return sendNew(block, stage: .idle)
    }

    /// Sends a block that moves the exchange forward, unless an S(IFS request) was scheduled: then
    /// that goes first and the block waits for the host's S(IFS response).
    private mutating func sendNew(_ block: [UInt8], stage next: Stage) -> [UInt8] {
        if let value = scheduledIFSC {
            scheduledIFSC = nil
            return sendRequest(pcb: 0xC1, value: value, deferring: block, resumeStage: next)
        }
        stage = next
        return emit(block)
    }

    private mutating func sendRequest(pcb: UInt8, value: UInt8, deferring block: [UInt8], resumeStage: Stage) -> [UInt8]
    {
        pendingRequest = supervisoryBlock(pcb: pcb, information: [value])
        deferredBlock = block
        deferredStage = resumeStage
        stage = .awaitingSupervisoryResponse(requestPCB: pcb, value: value)
        return emit(pendingRequest)
    }

    /// Records the block as sent and applies a pending EDC fault to the copy on the wire.
    private mutating func emit(_ block: [UInt8]) -> [UInt8] {
        spareBlock = lastSent
        lastSent = block
        guard corruptedBlocksRemaining > 0, let last = block.last else { return block }
        corruptedBlocksRemaining -= 1
        var corrupted = block
        corrupted[corrupted.count - 1] = last ^ 0xFF
        return corrupted
    }

    private mutating func receiveReadyBlock(sequence: UInt8, errorCode: UInt8) -> [UInt8] {
        frame(pcb: 0x80 | sequence << 4 | errorCode, information: EmptyCollection())
    }

    private mutating func supervisoryBlock(pcb: UInt8, information: some Collection<UInt8>) -> [UInt8] {
        frame(pcb: pcb, information: information)
    }

    // MARK: - Framing

    private var cardNodeAddress: UInt8 { (hostNodeAddress >> 4) | (hostNodeAddress << 4) }

    /// A block built in one array, the EDC appended in place: the spare block's storage when
    /// nobody else holds it, else new storage with room for any block.
    private mutating func frame(pcb: UInt8, information: some Collection<UInt8>) -> [UInt8] {
        var block: [UInt8] = []
        swap(&block, &spareBlock)
        block.removeAll(keepingCapacity: true)
        block.reserveCapacity(Self.longestBlock)
        block.append(cardNodeAddress)
        block.append(pcb)
        // At most IFSD (1...254, checked when the host set it) or one S-block byte.
        block.append(UInt8(truncatingIfNeeded: information.count))
        block += information
        appendErrorDetectionCode(to: &block)
        return block
    }

    private enum HostBlock {
        case invalid(checksumError: Bool)
        /// `information`: the INF's indices in the block (the slice's own indices).
        case information(sequence: UInt8, more: Bool, information: Range<Int>)
        case receiveReady(sequence: UInt8)
        case supervisory(pcb: UInt8, information: Range<Int>)
    }

    /// Checks a host block the way ISO/IEC 7816-3 §11.3 defines it.
    private func parse(_ bytes: ArraySlice<UInt8>) -> HostBlock {
        let edcLength = checksum == .crc ? 2 : 1
        guard bytes.count >= 3 + edcLength else { return .invalid(checksumError: false) }
        // A slice keeps its message's indices: every position is counted from its start.
        let start = bytes.startIndex
        let length = Int(bytes[start + 2])
        guard length < 0xFF, bytes.count == 3 + length + edcLength else {
            return .invalid(checksumError: false)
        }
        guard errorDetectionCodeMatches(bytes, edcLength: edcLength) else {
            return .invalid(checksumError: true)
        }
        guard bytes[start] == hostNodeAddress else { return .invalid(checksumError: false) }
        let pcb = bytes[start + 1]
        let information = (start + 3)..<(start + 3 + length)
        switch pcb >> 6 {
        case 0, 1: // I-block: 0 N(S) M 0 0 0 0 0
            guard pcb & 0x1F == 0 else { return .invalid(checksumError: false) }
            return .information(sequence: pcb >> 6, more: pcb & 0x20 != 0, information: information)
        case 2: // R-block: 1 0 0 N(R) e e e e, no INF
            guard pcb & 0x20 == 0, pcb & 0x0F <= 2, length == 0 else { return .invalid(checksumError: false) }
            return .receiveReady(sequence: (pcb >> 4) & 1)
        default: // S-block: 1 1 R t t t t t
            guard pcb & 0x1F <= 4 else { return .invalid(checksumError: false) }
            return .supervisory(pcb: pcb, information: information)
        }
    }

    /// True when the last `edcLength` bytes are the EDC of the ones before.
    private func errorDetectionCodeMatches(_ bytes: ArraySlice<UInt8>, edcLength: Int) -> Bool {
        let body = bytes.dropLast(edcLength)
        let code = errorDetectionCode(body)
        let end = bytes.endIndex
        if checksum == .crc {
            return bytes[end - 2] == UInt8(truncatingIfNeeded: code >> 8)
                && bytes[end - 1] == UInt8(truncatingIfNeeded: code)
        }
        return bytes[end - 1] == UInt8(truncatingIfNeeded: code)
    }

    /// Appends the EDC of the block's bytes so far, as it goes on the wire (CRC high byte first).
    private func appendErrorDetectionCode(to block: inout [UInt8]) {
        let code = errorDetectionCode(block)
        if checksum == .crc { block.append(UInt8(truncatingIfNeeded: code >> 8)) }
        block.append(UInt8(truncatingIfNeeded: code))
    }

    /// The EDC as a number: LRC in the low byte, or the CRC register.
    private func errorDetectionCode(_ bytes: some Collection<UInt8>) -> UInt16 {
        if checksum == .crc {
            // Same CRC as the host side documents (openct): reflected 0x8408, preset 0xFFFF, no
            // final complement, high byte first. Table-free form, independent of CCID's code.
            var register: UInt16 = 0xFFFF
            for byte in bytes {
                for bit in 0..<8 {
                    let feedback = (register ^ UInt16((byte >> UInt8(bit)) & 1)) & 1
                    register >>= 1
                    if feedback != 0 { register ^= 0x8408 }
                }
            }
            return register
        }
        var lrc: UInt8 = 0
        for byte in bytes { lrc ^= byte }
        return UInt16(lrc)
    }
}
