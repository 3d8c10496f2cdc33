import Logging

// Character level (CCID rev 1.1 §6.1.4: wLevelParameter is the number of bytes the host expects
// back): the host drives the card's I/O line. Power-on completes the ATR, the PPS is read byte by
// byte, T=0 runs its procedure bytes here (the TPDU mapping stays in T0HostProtocol), and T=1
// blocks are read as the shortest block's length (prologue and EDC), then the LEN bytes left
// (pcsc-lite's CCID driver reads the prologue alone first, one XfrBlock more for every R-block).
extension CCIDDriver {
    // MARK: - Transfers

    /// Sends `data` to the card and reads back exactly `expect` bytes, in as many XfrBlocks as
    /// the reader's message size requires: command chunks that ask for nothing back
    /// (wLevelParameter 0), the last one asking for the first part of the answer, then empty
    /// XfrBlocks for the rest. `answerStorage` is lent for the first part of the answer
    /// (``xfrBlock(_:slot:bwi:level:timeout:lending:)``).
    func characterTransfer(
        _ data: [UInt8], expect: Int, slot: UInt8, bwi: UInt8 = 0,
        timeout: Duration? = nil, lending answerStorage: consuming [UInt8] = []
    ) async throws -> [UInt8] {
        // wLevelParameter is 16 bits wide.
        let chunk = min(max(descriptor.maxPayloadPerMessage, 1), Int(UInt16.max))
        var offset = 0
        repeat {
            let end = min(offset + chunk, data.count)
            let last = end == data.count
            let ask = last ? min(expect, chunk) : 0
            // Data that fits one message goes as it is (no copy: the message is framed apart).
            let part = offset == 0 && last ? data : Array(data[offset..<end])
            var lent: [UInt8] = []
            if last { swap(&lent, &answerStorage) }
            let answer = try await xfrBlock(
                part, slot: slot, bwi: bwi,
                level: UInt16(truncatingIfNeeded: ask), timeout: timeout, lending: consume lent
            ).data
            guard answer.count == ask else {
                throw CCIDDriverError.characterLevel(
                    .answerLength(expected: ask, received: answer.count), command: data)
            }
            offset = end
            if last {
                var received = answer
                while received.count < expect {
                    let more = min(expect - received.count, chunk)
                    let part = try await xfrBlock(
                        [], slot: slot, bwi: bwi, level: UInt16(truncatingIfNeeded: more),
                        timeout: timeout
                    ).data
                    guard part.count == more else {
                        throw CCIDDriverError.characterLevel(
                            .answerLength(expected: more, received: part.count), command: data)
                    }
                    received += part
                }
                return received
            }
        } while true
    }

    // MARK: - Power-on

    /// The ATR as the reader returned it, completed from the I/O line when it is shorter than
    /// its own structure says (at most ``ATRLength/maximum`` bytes in all).
    func completeCharacterATR(_ atr: [UInt8], slot: UInt8) async throws -> [UInt8] {
        var atr = atr
        while let missing = ATRLength.missing(after: atr), missing > 0 {
            guard atr.count + missing <= ATRLength.maximum else {
                throw CCIDDriverError.characterLevel(.incompleteATR(atr), command: [])
            }
            logger.debug(
                "reading the rest of the ATR from the card",
                metadata: ["have": "\(atr.count)", "missing": "\(missing)"])
            atr += try await characterTransfer([], expect: missing, slot: slot, timeout: configuration.powerOnTimeout)
        }
        return atr
    }

    /// A PPS exchange at character level: the request, then PPSS and PPS0, then the optional
    /// bytes PPS0 announces and PCK.
    func characterPPS(_ request: [UInt8], slot: UInt8) async throws -> [UInt8] {
        var answer = try await characterTransfer(request, expect: 2, slot: slot)
        let optional = [0x10, 0x20, 0x40].filter { answer[1] & $0 != 0 }.count
        answer += try await characterTransfer([], expect: optional + 1, slot: slot)
        return answer
    }

    // MARK: - T=0

    /// One TPDU through its procedure bytes; returns the card's data and SW1 SW2. A card that
    /// sends NULL forever is stopped by the operation's ``CCIDDriverConfiguration/exchangeTimeLimit``
    /// (every XfrBlock checks it).
    func characterTPDU(_ tpdu: [UInt8], slot: UInt8) async throws -> [UInt8] {
        if logger.logLevel <= .trace {
            logger.trace("T=0 TPDU >", metadata: ["tpdu": "\(tpdu.map(hex2).joined(separator: " "))"])
        }
        var exchange = T0CharacterExchange(tpdu: tpdu)
        var step = exchange.start()
        // The exchange copies what it reads: each answer's storage is lent for the next one.
        var spent: [UInt8] = []
        while true {
            switch step {
            case .transfer(let send, let expect):
                let bytes = try await characterTransfer(send, expect: expect, slot: slot, lending: consume spent)
                step = exchange.receive(bytes)
                spent = consume bytes
            case .completed(let answer):
                if logger.logLevel <= .trace {
                    logger.trace("T=0 TPDU <", metadata: ["answer": "\(answer.map(hex2).joined(separator: " "))"])
                }
                return answer
            case .failed(let error):
                throw CCIDDriverError.characterLevel(error, command: tpdu)
            }
        }
    }

    // MARK: - T=1

    /// One T=1 block at character level: the block's bytes out, then the card's block read in
    /// two parts: as many bytes as the shortest block has (NAD PCB LEN and the EDC), then the
    /// LEN bytes that leaves. An R-block or an S-block without INF (LEN 0) thus comes in one
    /// XfrBlock: where a chained command's blocks are acknowledged, one USB round trip less per
    /// block than reading the prologue first. No block is shorter, so the first read never
    /// waits for characters the card does not send. ``runT1(_:first:slot:)`` drives the state
    /// machine for both levels. `answerStorage` is lent for the first read.
    ///
    /// A block whose EDC does not check (or whose LEN is the reserved FF) may have had its LEN
    /// spoiled, so the card may still be sending: its characters are read off until it falls
    /// silent (``discardCharacters(slot:bwi:timeout:)``) before T=1 answers with an R-block.
    /// The I/O line is half-duplex, so an R-block sent meanwhile would be lost, and what is left
    /// of the block would be read as the start of the next one, again and again.
    func characterT1Block(
        _ block: [UInt8], slot: UInt8, bwi: UInt8, timeout: Duration,
        checksum: T1Checksum, lending answerStorage: consuming [UInt8] = []
    ) async throws -> [UInt8] {
        var received = try await characterTransfer(
            block, expect: 3 + checksum.length, slot: slot, bwi: bwi, timeout: timeout,
            lending: consume answerStorage)
        let length = received[2]
        // LEN FF is reserved: the block is invalid whatever follows; T=1 says so.
        if length != 0xFF {
            if length > 0 {
                received += try await characterTransfer(
                    [], expect: Int(length), slot: slot, bwi: bwi, timeout: timeout)
            }
            if checksum.isEnding(of: received) {
                return received
            }
        }
        logger.debug(
            "T=1 block with a bad EDC or LEN; reading off the rest of what the card sends",
            metadata: ["prologue": "\(received.prefix(3).map(hex2).joined(separator: " "))"])
        try await discardCharacters(slot: slot, bwi: bwi, timeout: timeout)
        return received
    }

    /// Reads and drops what the card sends until it falls silent: asks for the longest T=1
    /// block (3 + 254 + 2 bytes) until the reader reports a mute card, at most four times.
    func discardCharacters(slot: UInt8, bwi: UInt8, timeout: Duration) async throws {
        for _ in 0..<4 {
            do {
                _ = try await characterTransfer(
                    [], expect: 3 + T1Block.maximumInformationLength + 2, slot: slot,
                    bwi: bwi, timeout: timeout)
            } catch CCIDDriverError.cardMute {
                return
            } catch CCIDDriverError.characterLevel(.answerLength, _) {
                // A reader that hands over what arrived instead of reporting a mute card.
                return
            }
        }
    }
}
