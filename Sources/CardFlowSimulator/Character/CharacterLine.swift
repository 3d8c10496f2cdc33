// The I/O line between a character-level CCID reader and its card (CCID rev 1.1 §6.1.4; ISO/IEC
// 7816-3 §9–11), from the card's side: what the host writes in PC_to_RDR_XfrBlock reaches the
// card byte by byte, the card answers into an output stream, and the reader hands back exactly
// wLevelParameter bytes of it. Written from the standards, not from the host driver: a T=0 card
// sees a header, then procedure bytes decide who sends; a T=1 card sees blocks by their LEN.

import CardFlowCCIDProtocol

/// The card's side of a character-level I/O line since the last reset.
struct CharacterLine: Sendable {
    /// The protocol the card runs (after any PPS).
    enum CardProtocol: Sendable { case t0, t1 }

    private enum T0Stage: Sendable {
        case header([UInt8])
        /// The card acknowledged a command with data: the TPDU so far, its five header bytes and
        /// the data that arrived (kept together, so the whole TPDU goes to the card without a copy).
        case incoming(tpdu: [UInt8])
        /// The card is stuck sending NULL.
        case stalled
        /// The card said nothing more (mute, or after a broken answer).
        case silent
    }

    let behaviour: CharacterLineBehaviour
    /// Bytes the card has sent that the reader has not handed to the host yet.
    private(set) var output: [UInt8]
    /// A PPS request may still come: nothing else has gone over the line since the ATR.
    private var ppsPossible: Bool
    private var ppsRequest: [UInt8] = []
    private var t0Stage = T0Stage.header([])
    private var t0Endpoint: T0CardEndpoint
    private var t1Endpoint: T1CardEndpoint
    private var t1Block: [UInt8] = []
    /// A slip waiting for the card's next emission.
    private var pendingFault: CharacterLineFault?
    /// The name of the fault that last spoiled an emission, until the owner takes it.
    private var faultShown: String?

    /// A line right after the card's reset; `atrRest` is the part of the ATR the reader did not
    /// put in the IccPowerOn answer; `checksum` is the T=1 EDC the card's ATR announced.
    init(
        behaviour: CharacterLineBehaviour, atrRest: [UInt8], supportsEnvelope: Bool, ifsc: Int,
        checksum: T1Checksum = .lrc
    ) {
        self.behaviour = behaviour
        output = atrRest
        ppsPossible = true
        t0Endpoint = T0CardEndpoint(supportsEnvelope: supportsEnvelope)
        t1Endpoint = T1CardEndpoint(ifsc: min(max(ifsc, 1), 254), checksum: checksum)
        if behaviour.mute { t0Stage = .silent }
    }

    // MARK: - Fault injection

    /// The card's next emission (T=0 characters or a T=1 block) meets `fault`.
    mutating func inject(_ fault: CharacterLineFault) {
        pendingFault = fault
    }

    /// The next T=1 block the card sends carries a wrong EDC (its last byte flipped).
    mutating func corruptNextT1Block() {
        t1Endpoint.corruptNextBlockChecksum()
    }

    /// Takes the name of the fault that spoiled an emission since the last call.
    mutating func takeFaultShown() -> String? {
        defer { faultShown = nil }
        return faultShown
    }

    /// Hands the host's bytes to the card.
    ///
    /// - Parameters:
    ///   - link: the contact card's protocol and speed state (nil for a contactless card,
    ///     which runs T=1 and echoes a PPS request for T=1).
    ///   - takesData: whether a T=0 command with this header takes P3 bytes from the terminal.
    ///   - process: runs one command APDU on the card model; an empty answer means it left.
    mutating func receive(
        _ bytes: ArraySlice<UInt8>, link: inout ContactLink?, takesData: ([UInt8]) -> Bool,
        process: ([UInt8]) -> [UInt8]
    ) {
        guard !behaviour.mute else { return }
        var index = bytes.startIndex
        while index < bytes.endIndex {
            let byte = bytes[index]
            index += 1
            if ppsPossible {
                ppsPossible = false
                if byte == 0xFF {
                    ppsRequest = [byte]
                    continue
                }
                link?.ppsAllowed = false
            }
            if !ppsRequest.isEmpty {
                ppsRequest.append(byte)
                if ppsRequest.count >= 2,
                    ppsRequest.count == 3 + [0x10, 0x20, 0x40].filter({ ppsRequest[1] & $0 != 0 }).count
                {
                    answerPPS(link: &link)
                }
                continue
            }
            // Reader and card out of step (protocol or speed): the card reads garbage and
            // answers nothing the reader can decode.
            if let current = link, !current.inStep || current.cardMute { continue }
            switch cardProtocol(link) {
            case .t0:
                t0Received(byte, takesData: takesData, process: process)
                index += t0ReceiveData(bytes[index...])
            case .t1: t1Received(byte, process: process)
            }
        }
    }

    /// Command data the card ACKed as a whole (no per-byte procedure bytes) is only collected
    /// until the last byte: takes what `bytes` holds of it short of that byte (which completes
    /// the command through ``t0Received``) in one append, and returns how many it took. The same
    /// effect as character by character.
    private mutating func t0ReceiveData(_ bytes: ArraySlice<UInt8>) -> Int {
        guard !behaviour.oneByteAtATime, case .incoming(var tpdu) = t0Stage else { return 0 }
        let count = min(5 + Int(tpdu[4]) - 1 - tpdu.count, bytes.count)
        guard count > 0 else { return 0 }
        t0Stage = .silent
        tpdu.append(contentsOf: bytes.prefix(count))
        t0Stage = .incoming(tpdu: tpdu)
        return count
    }

    /// Takes `count` bytes of the card's output, or nil when the card stops sending before
    /// that many (then what it did send is lost with the reader's time-out). All of it goes in
    /// its own storage (``recycle(_:)`` can give that back); a part is copied.
    mutating func read(_ count: Int) -> [UInt8]? {
        if case .stalled = t0Stage, output.count < count {
            output += [UInt8](repeating: 0x60, count: count - output.count)
        }
        guard output.count >= count else { return nil }
        if output.count == count { return drain() }
        defer { output.removeFirst(count) }
        return Array(output.prefix(count))
    }

    /// Takes whatever the card has sent (for a reader that returns short answers).
    mutating func drain() -> [UInt8] {
        var taken: [UInt8] = []
        swap(&taken, &output)
        return taken
    }

    /// Gives back the storage of output the reader has handed on, for the card's next output:
    /// an exchange then costs the line no allocation. Kept only while nothing waits to be sent
    /// and when larger than the line's own storage.
    mutating func recycle(_ storage: consuming [UInt8]) {
        guard output.isEmpty, storage.capacity > output.capacity else { return }
        var spent = consume storage
        spent.removeAll(keepingCapacity: true)
        output = consume spent
    }

    private func cardProtocol(_ link: ContactLink?) -> CardProtocol {
        guard let link else { return .t1 }
        return link.cardProtocol == 0 ? .t0 : .t1
    }

    // MARK: - PPS (ISO/IEC 7816-3 §9)

    private mutating func answerPPS(link: inout ContactLink?) {
        let request = ppsRequest
        ppsRequest = []
        if var contact = link {
            if let answer = contact.answerPPS(request) { output += answer }
            link = contact
        } else if request.count >= 3, request[1] & 0x0F == 1, request.reduce(0, ^) == 0 {
            // A contactless card behind the reader runs T=1 and confirms a request for it.
            output += request
        }
    }

    // MARK: - T=0 (ISO/IEC 7816-3 §10)

    private mutating func t0Received(_ byte: UInt8, takesData: ([UInt8]) -> Bool, process: ([UInt8]) -> [UInt8]) {
        switch t0Stage {
        case .silent, .stalled:
            return
        case .header(var header):
            // The stage lets go of its array first, so the append works in place rather than on
            // a copy (one allocation per character otherwise).
            t0Stage = .silent
            header.append(byte)
            guard header.count == 5 else {
                t0Stage = .header(header)
                return
            }
            if behaviour.endlessNull {
                t0Stage = .stalled
                return
            }
            if let invalid = behaviour.invalidProcedureByte {
                output += [invalid, 0x90, 0x00]
                t0Stage = .silent
                return
            }
            let ins = header[1]
            if header[4] != 0, takesData(header) {
                // Command data follows: ACK it all at once, or one byte at a time.
                sendT0(afterNulls([behaviour.oneByteAtATime ? ~ins : ins]), instruction: ins, endsWithStatusWord: false)
                var tpdu = header
                tpdu.reserveCapacity(5 + Int(header[4]))
                t0Stage = .incoming(tpdu: tpdu)
                return
            }
            t0Stage = .header([])
            let answer = t0Answer(to: header, process: process)
            guard answer.count >= 2 else {
                t0Stage = .silent
                return
            }
            emit(
                T0ProcedureBytes.cardCharacters(
                    header: header, incomingLength: 0, answer: answer,
                    nullBytes: behaviour.nullBytes, oneByteAtATime: behaviour.oneByteAtATime),
                instruction: ins)
        case .incoming(var tpdu):
            t0Stage = .silent
            tpdu.append(byte)
            let ins = tpdu[1]
            guard tpdu.count == 5 + Int(tpdu[4]) else {
                if behaviour.oneByteAtATime { sendT0([~ins], instruction: ins, endsWithStatusWord: false) }
                t0Stage = .incoming(tpdu: tpdu)
                return
            }
            t0Stage = .header([])
            let answer = t0Answer(to: tpdu, process: process)
            guard answer.count >= 2 else {
                t0Stage = .silent
                return
            }
            emit(afterNulls(answer), instruction: ins)
        }
    }

    /// `characters` after the NULL bytes (60) the behaviour sends first; as they are when it sends
    /// none (no copy behind an empty prefix).
    private func afterNulls(_ characters: [UInt8]) -> [UInt8] {
        behaviour.nullBytes == 0 ? characters : [UInt8](repeating: 0x60, count: behaviour.nullBytes) + characters
    }

    /// The card's answer to a whole TPDU (data and SW1 SW2), as ``T0CardEndpoint`` gives it.
    private mutating func t0Answer(to tpdu: [UInt8], process: ([UInt8]) -> [UInt8]) -> [UInt8] {
        switch t0Endpoint.receive(tpdu) {
        case .respond(let answer):
            return answer
        case .process(let apdu):
            let response = process(apdu)
            return response.isEmpty ? [] : t0Endpoint.respond(with: response)
        }
    }

    /// Characters that end the command with SW1 SW2.
    private mutating func emit(_ characters: [UInt8], instruction: UInt8) {
        if behaviour.dropsLastByte {
            output += characters.dropLast()
            t0Stage = .silent
        } else {
            sendT0(characters, instruction: instruction, endsWithStatusWord: true)
        }
    }

    /// Puts T=0 characters on the line, through a pending fault.
    private mutating func sendT0(_ characters: [UInt8], instruction: UInt8, endsWithStatusWord: Bool) {
        if let fault = pendingFault {
            pendingFault = nil
            if let spoiled = fault.applied(
                toT0: characters, instruction: instruction, endsWithStatusWord: endsWithStatusWord)
            {
                faultShown = fault.name
                output += spoiled
                return
            }
        }
        output += characters
    }

    // MARK: - T=1 (ISO/IEC 7816-3 §11)

    private mutating func t1Received(_ byte: UInt8, process: ([UInt8]) -> [UInt8]) {
        t1Block.append(byte)
        // NAD PCB LEN, then LEN information bytes and the EDC.
        guard t1Block.count >= 3, t1Block.count == 3 + Int(t1Block[2]) + t1Endpoint.checksum.length else { return }
        // The endpoint reads the block where it lies and keeps nothing of it, so the buffer is
        // emptied in place for the next block rather than handed away.
        let event = t1Endpoint.receive(t1Block[...])
        t1Block.removeAll(keepingCapacity: true)
        switch event {
        case .send(let answer):
            sendT1(answer)
        case .commandComplete(let apdu):
            let response = process(apdu)
            // The card left during the exchange: it says nothing more.
            guard !response.isEmpty else { return }
            sendT1(t1Endpoint.respond(with: response))
        case .waitingTimeExtensionGranted:
            sendT1(t1Endpoint.respond(with: [0x6F, 0x00]))
        }
    }

    /// Puts one T=1 block on the line, through a pending fault.
    private mutating func sendT1(_ block: [UInt8]) {
        if let fault = pendingFault {
            pendingFault = nil
            if let spoiled = fault.applied(toT1Block: block) {
                faultShown = fault.name
                output += spoiled
                return
            }
        }
        output += block
    }
}
