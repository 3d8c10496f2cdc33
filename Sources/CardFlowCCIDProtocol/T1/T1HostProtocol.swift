// Host (interface device) side of the T=1 block protocol, ISO/IEC 7816-3 §11.6, as a pure step
// machine: the caller transmits each block it is given and feeds back what the card answered.
// Rule numbers in comments are those of ISO/IEC 7816-3 §11.6 (as openct and pcsc-lite cite them).

/// What the caller of ``T1HostProtocol`` does next.
public enum T1HostAction: Sendable, Hashable {
    /// Transmit this block and feed the card's answer to ``T1HostProtocol/receive(_:)`` (or call
    /// ``T1HostProtocol/timeoutOccurred()`` when none arrives).
    ///
    /// `waitingTimeMultiplier` multiplies the block waiting time for this one answer: the value
    /// of the S(WTX request) the block answers, 1 otherwise. A CCID driver puts it in the bBWI
    /// byte of `PC_to_RDR_XfrBlock` and scales its read timeout by it.
    case send([UInt8], waitingTimeMultiplier: UInt8)
    /// The exchange finished: the whole response APDU (empty after IFSD negotiation).
    case completed([UInt8])
    /// The exchange failed. When ``T1Error/requiresCardReset`` is true the card must be reset and
    /// ``T1HostProtocol/reset()`` called before the next exchange; otherwise (misuse) nothing
    /// changed.
    case failed(T1Error)
}

/// The interface-device half of T=1: chaining, acknowledgements, S-block handling, error
/// recovery and resynchronisation, without I/O.
///
/// One exchange at a time: ``begin(command:)`` returns the first block; every block the card
/// sends goes to ``receive(_:)``, every missing answer to ``timeoutOccurred()``, until the action is
/// ``T1HostAction/completed(_:)`` or ``T1HostAction/failed(_:)``.
///
/// Error recovery follows ISO/IEC 7816-3 rule 7: an invalid block (bad EDC, LEN or NAD,
/// undefined PCB, a block that makes no sense at this point) is answered with an R-block
/// requesting the expected I-block, or by resending our last R-block or S-request; a card's
/// R-block naming the I-block in flight makes us resend it. The `retryLimit`-th consecutive
/// failure starts resynchronisation with S(RESYNCH request); after it the whole command is sent
/// again. After `resynchronisationLimit` attempts in one exchange the exchange fails.
///
/// After a failure the card must be reset (then call ``reset()``); ``beginResynchronisation()``
/// is the lighter way back after an exchange the caller abandoned.
public struct T1HostProtocol: Sendable {
    /// IFSC to start from: the card's TA3 (or 32) from the ATR, clamped to 1...254.
    public let initialIFSC: Int
    /// IFSD to start from (32 per ISO/IEC 7816-3 until an S(IFS) exchange changes it).
    public let initialIFSD: Int
    /// The EDC the card uses.
    public let checksum: T1Checksum
    /// NAD put in every block sent; blocks from the card must carry it nibble-swapped.
    public let nodeAddress: UInt8
    /// Consecutive failures (invalid blocks, time-outs, retransmission requests) after which the
    /// host resynchronises instead of retrying; with 3, a block is retransmitted at most twice.
    public let retryLimit: Int
    /// S(RESYNCH request) transmissions allowed per exchange before it fails.
    public let resynchronisationLimit: Int
    /// Largest response APDU accepted, so a card chaining forever cannot exhaust memory.
    public let maximumResponseLength: Int

    /// Information field size for the card: the most INF bytes one I-block to the card carries.
    public private(set) var ifsc: Int
    /// Information field size for the device: the most INF bytes accepted in one I-block.
    public private(set) var ifsd: Int
    /// N(S) of the I-block in flight (or the next one we send).
    public private(set) var sendSequence: UInt8 = 0
    /// N(S) expected in the card's next I-block.
    public private(set) var receiveSequence: UInt8 = 0

    private enum Stage: Sendable, Hashable {
        case idle
        case halted
        case negotiatingIFSD(UInt8)
        /// Our command's I-blocks go out; the card acknowledges chained ones with R-blocks.
        case sendingCommand
        /// The card's response chain comes in; we acknowledge with R-blocks.
        case receivingResponse
        /// S(RESYNCH request) sent, S(RESYNCH response) awaited.
        case resynchronising
    }

    private var stage: Stage = .idle
    /// A received block's storage, no longer needed (``takeFreedStorage()``).
    private var freedStorage: [UInt8] = []
    private var command: [UInt8] = []
    /// Command bytes the card has acknowledged.
    private var acknowledgedLength = 0
    /// Size and chaining bit of the I-block in flight.
    private var inFlightLength = 0
    private var inFlightMore = false
    /// The last block transmitted, resent verbatim under rules 7.2 and 7.3.
    private var outgoing: [UInt8] = []
    /// The block transmitted before it. Blocks are written into these two buffers in turn: the
    /// caller still holds the block it just sent while it hands over the card's answer, so the
    /// next block goes into the other buffer, which it let go of by then, without allocating
    /// (issue 40).
    private var previousOutgoing: [UInt8] = []
    private var response: [UInt8] = []
    private var consecutiveFailures = 0
    private var resynchronisations = 0
    /// Blocks sent again or R-blocks sent to recover from an invalid block or a time-out, since
    /// this protocol state was made (never reset): what `cardctl bench` reports as re-sends.
    public private(set) var recoveries = 0
    /// True when the resynchronisation was asked for by the caller, not started by error
    /// recovery: it completes on S(RESYNCH response) instead of resending a command.
    private var resynchronisingOnRequest = false

    /// Creates the host side for a card whose ATR selected T=1.
    ///
    /// IFSC and IFSD are clamped to 1...254 (pcsc-lite likewise turns an IFSC of 0xFF into 254).
    public init(
        ifsc: Int = 32,
        ifsd: Int = 32,
        checksum: T1Checksum = .lrc,
        nodeAddress: UInt8 = 0,
        retryLimit: Int = 3,
        resynchronisationLimit: Int = 3,
        maximumResponseLength: Int = 65_538
    ) {
        let clampedIFSC = min(max(ifsc, 1), T1Block.maximumInformationLength)
        let clampedIFSD = min(max(ifsd, 1), T1Block.maximumInformationLength)
        self.initialIFSC = clampedIFSC
        self.initialIFSD = clampedIFSD
        self.ifsc = clampedIFSC
        self.ifsd = clampedIFSD
        self.checksum = checksum
        self.nodeAddress = nodeAddress
        self.retryLimit = max(retryLimit, 1)
        self.resynchronisationLimit = max(resynchronisationLimit, 0)
        self.maximumResponseLength = max(maximumResponseLength, 0)
    }

    /// True between the first block of an exchange (or IFSD negotiation) and its end.
    public var isExchangeInProgress: Bool {
        switch stage {
        case .idle, .halted: false
        case .negotiatingIFSD, .sendingCommand, .receivingResponse, .resynchronising: true
        }
    }

    /// True after a failure that left the card's T=1 state unknown; ``reset()`` clears it.
    public var requiresCardReset: Bool { stage == .halted }

    /// Returns to the state after the card's ATR: sequence numbers 0, IFSC and IFSD back to their
    /// initial values, no exchange. Call it after every card power-on or reset.
    public mutating func reset() {
        stage = .idle
        sendSequence = 0
        receiveSequence = 0
        ifsc = initialIFSC
        ifsd = initialIFSD
        clearExchange()
    }

    /// Starts exchanging `apdu` and returns its first I-block (or the whole APDU when it fits in
    /// IFSC).
    public mutating func begin(command apdu: [UInt8]) -> T1HostAction {
        if let refusal = refusalToStart() { return .failed(refusal) }
        guard !apdu.isEmpty else { return .failed(.emptyCommand) }
        clearExchange()
        command = apdu
        stage = .sendingCommand
        return sendNextInformationBlock()
    }

    /// Starts the S(IFS request) exchange that announces `ifsd` to the card (pcsc-lite does it
    /// once after SetParameters for TPDU readers, with the reader's dwMaxIFSD). Completes with an
    /// empty response when the card echoes the value in S(IFS response).
    public mutating func beginIFSDNegotiation(ifsd: Int) -> T1HostAction {
        if let refusal = refusalToStart() { return .failed(refusal) }
        guard (1...T1Block.maximumInformationLength).contains(ifsd) else {
            return .failed(.invalidInformationFieldSize(ifsd))
        }
        clearExchange()
        let value = UInt8(ifsd)
        stage = .negotiatingIFSD(value)
        return transmit(.supervisory(.ifs, isResponse: false), information: CollectionOfOne(value))
    }

    /// Resynchronises with the card: S(RESYNCH request), and on S(RESYNCH response) both sides
    /// start again from N(S) = N(R) = 0. Completes with an empty response.
    ///
    /// Allowed in any state. Use it to get back in step after an exchange was abandoned (the
    /// calling task was cancelled, the reader reported an error) without resetting the card; an
    /// exchange in progress is dropped. Fails like any resynchronisation after
    /// `resynchronisationLimit` unanswered attempts.
    public mutating func beginResynchronisation() -> T1HostAction {
        clearExchange()
        resynchronisingOnRequest = true
        return resynchronise()
    }

    /// Feeds one block received from the card (the abData of the reader's DataBlock).
    ///
    /// Taken as its owner's: the first piece of a response becomes the response APDU in place
    /// (its prologue and EDC removed), so a response in one block costs no copy. The storage of
    /// a block not kept (an R-block, a later piece of a response) is kept for
    /// ``takeFreedStorage()``.
    public mutating func receive(_ bytes: consuming [UInt8]) -> T1HostAction {
        var block = consume bytes
        let action = receive(block: &block)
        // Left with capacity only when not moved into the response.
        if block.capacity > freedStorage.capacity { freedStorage = consume block }
        return action
    }

    /// The storage of a received block this protocol has finished with, given up (empty when
    /// there is none). A driver lends it for the next block's read
    /// (``USBBulkInRead/storage``), so a transport that can write into it allocates nothing for
    /// the answer.
    ///
    /// ```swift
    /// let read = USBBulkInRead(maxLength: 271, timeout: .seconds(5), storage: t1.takeFreedStorage())
    /// ```
    public mutating func takeFreedStorage() -> [UInt8] {
        var storage: [UInt8] = []
        swap(&storage, &freedStorage)
        return storage
    }

    private mutating func receive(block bytes: inout [UInt8]) -> T1HostAction {
        if let refusal = refusalToContinue() { return .failed(refusal) }
        let block: T1ReceivedBlock
        do {
            block = try T1ReceivedBlock(checking: copy bytes, checksum: checksum)
        } catch {
            if case .checksumMismatch = error {
                return invalidBlockReceived(.edcOrParity)
            }
            return invalidBlockReceived(.other)
        }
        guard block.nodeAddress == expectedNodeAddress else {
            return invalidBlockReceived(.other)
        }
        switch stage {
        case .negotiatingIFSD(let value):
            guard block.kind == .supervisory(.ifs, isResponse: true),
                bytes[block.information].elementsEqual(CollectionOfOne(value))
            else {
                return invalidBlockReceived(.other)
            }
            ifsd = Int(value)
            stage = .idle
            clearExchange()
            return .completed([])
        case .resynchronising:
            guard block.kind == .supervisory(.resynch, isResponse: true), block.information.isEmpty else {
                return invalidBlockReceived(.other)
            }
            return restartAfterResynchronisation()
        case .sendingCommand, .receivingResponse:
            switch block.kind {
            case .information(let sequence, let more):
                return informationBlockReceived(&bytes, information: block.information, sequence: sequence, more: more)
            case .receiveReady(let sequence, _):
                return receiveReadyReceived(sequence: sequence, information: bytes[block.information])
            case .supervisory(let function, let isResponse):
                // The host sends no S-request during an exchange, so no S-response is expected.
                guard !isResponse else { return invalidBlockReceived(.other) }
                return supervisoryRequestReceived(function, information: bytes[block.information])
            }
        case .idle, .halted:
            // Handled by refusalToContinue(); kept so the switch stays exhaustive.
            return .failed(.noExchangeInProgress)
        }
    }

    /// Reports that the card did not answer in time (the reader returned no block). Handled like
    /// an invalid block: R-block with "other error", resend, or resynchronisation.
    public mutating func timeoutOccurred() -> T1HostAction {
        if let refusal = refusalToContinue() { return .failed(refusal) }
        return invalidBlockReceived(.other)
    }

    // MARK: - Exchange

    private var expectedNodeAddress: UInt8 { nodeAddress << 4 | nodeAddress >> 4 }

    private func refusalToStart() -> T1Error? {
        switch stage {
        case .idle: nil
        case .halted: .cardResetRequired
        case .negotiatingIFSD, .sendingCommand, .receivingResponse, .resynchronising: .exchangeInProgress
        }
    }

    private func refusalToContinue() -> T1Error? {
        switch stage {
        case .idle: .noExchangeInProgress
        case .halted: .cardResetRequired
        case .negotiatingIFSD, .sendingCommand, .receivingResponse, .resynchronising: nil
        }
    }

    /// An I-block from the card; `information` are the INF's indices in `bytes`.
    private mutating func informationBlockReceived(
        _ bytes: inout [UInt8], information: Range<Int>, sequence: UInt8, more: Bool
    ) -> T1HostAction {
        // While our chain is unfinished the card must acknowledge with R-blocks (rule 5).
        if stage == .sendingCommand && inFlightMore {
            return invalidBlockReceived(.other)
        }
        guard sequence == receiveSequence, information.count <= ifsd else {
            return invalidBlockReceived(.other)
        }
        if stage == .sendingCommand {
            // The card's first I-block acknowledges our last I-block.
            acknowledgedLength += inFlightLength
            sendSequence ^= 1
            stage = .receivingResponse
        }
        if response.isEmpty {
            // The first piece: the received bytes become the response, trimmed in place.
            bytes.removeSubrange(information.upperBound...)
            bytes.removeSubrange(..<information.lowerBound)
            swap(&response, &bytes)
        } else {
            response += bytes[information]
        }
        guard response.count <= maximumResponseLength else {
            return fail(.responseTooLong(limit: maximumResponseLength))
        }
        receiveSequence ^= 1
        consecutiveFailures = 0
        if more {
            return transmitReceiveReady(error: .none)
        }
        let completeResponse = response
        stage = .idle
        clearExchange()
        return .completed(completeResponse)
    }

    private mutating func receiveReadyReceived(sequence: UInt8, information: ArraySlice<UInt8>) -> T1HostAction {
        // While receiving, the card may only send I-blocks; an R-block means it did not get our
        // last R-block, which rule 7.2 (via invalidBlockReceived) resends.
        guard stage == .sendingCommand, information.isEmpty else {
            return invalidBlockReceived(.other)
        }
        if sequence == sendSequence {
            // The card asks for the I-block in flight again.
            consecutiveFailures += 1
            if consecutiveFailures >= retryLimit { return resynchronise() }
            return sendInformationBlockInFlight()
        }
        // N(R) names the next I-block: an acknowledgement, valid only inside our chain (rule 5).
        guard inFlightMore else { return invalidBlockReceived(.other) }
        acknowledgedLength += inFlightLength
        sendSequence ^= 1
        consecutiveFailures = 0
        return sendNextInformationBlock()
    }

    private mutating func supervisoryRequestReceived(_ function: T1SupervisoryFunction, information: ArraySlice<UInt8>)
        -> T1HostAction
    {
        switch function {
        case .waitingTimeExtension:
            guard information.count == 1 else { return invalidBlockReceived(.other) }
            let multiplier = information[information.startIndex]
            consecutiveFailures = 0
            // A multiplier of 0 is meaningless; the wait is never shortened below BWT.
            return transmit(
                .supervisory(.waitingTimeExtension, isResponse: true), information: CollectionOfOne(multiplier),
                waitingTimeMultiplier: max(multiplier, 1))
        case .ifs:
            guard let size = information.first, information.count == 1,
                (1...UInt8(T1Block.maximumInformationLength)).contains(size)
            else {
                return invalidBlockReceived(.other)
            }
            ifsc = Int(size)
            consecutiveFailures = 0
            return transmit(.supervisory(.ifs, isResponse: true), information: information)
        case .abort:
            guard information.isEmpty else { return invalidBlockReceived(.other) }
            return fail(.cardAborted)
        case .resynch:
            guard information.isEmpty else { return invalidBlockReceived(.other) }
            return fail(.cardRequestedResynchronisation)
        case .vppError:
            // Not part of ISO/IEC 7816-3:2006; treated as a block that makes no sense here.
            return invalidBlockReceived(.other)
        }
    }

    /// Rule 7: one more consecutive failure; retry, or resynchronise when the limit is reached.
    private mutating func invalidBlockReceived(_ error: T1ReceiveReadyError) -> T1HostAction {
        consecutiveFailures += 1
        recoveries += 1
        switch stage {
        case .negotiatingIFSD(let value):
            if consecutiveFailures >= retryLimit { return fail(.ifsdNegotiationFailed(requested: value)) }
            return resend() // Rule 7.3: resend S(IFS request).
        case .resynchronising:
            return resynchronise() // Rule 7.3: resend S(RESYNCH request), counted as an attempt.
        case .sendingCommand, .receivingResponse:
            if consecutiveFailures >= retryLimit { return resynchronise() }
            if lastSentIsReceiveReady { return resend() } // Rule 7.2.
            return transmitReceiveReady(error: error) // Rule 7.1.
        case .idle, .halted:
            return .failed(.noExchangeInProgress)
        }
    }

    /// Rule 6 (resynchronisation): S(RESYNCH request), as long as attempts remain. Sequence numbers
    /// are reset only when the card confirms.
    private mutating func resynchronise() -> T1HostAction {
        guard resynchronisations < resynchronisationLimit else {
            return fail(.resynchronisationFailed(attempts: resynchronisations))
        }
        resynchronisations += 1
        consecutiveFailures = 0
        stage = .resynchronising
        return transmit(.supervisory(.resynch, isResponse: false))
    }

    /// After S(RESYNCH response) both sides start from sequence numbers 0 and the command is
    /// sent again from its first byte; anything received so far is discarded.
    private mutating func restartAfterResynchronisation() -> T1HostAction {
        sendSequence = 0
        receiveSequence = 0
        if resynchronisingOnRequest {
            stage = .idle
            clearExchange()
            return .completed([])
        }
        acknowledgedLength = 0
        response = []
        consecutiveFailures = 0
        stage = .sendingCommand
        return sendNextInformationBlock()
    }

    private mutating func sendNextInformationBlock() -> T1HostAction {
        let remaining = command.count - acknowledgedLength
        let length = min(remaining, ifsc)
        inFlightLength = length
        inFlightMore = remaining > length
        return sendInformationBlockInFlight()
    }

    /// The I-block in flight (again, when the card asks for it), encoded from the command's own
    /// storage: no copy of the piece first.
    private mutating func sendInformationBlockInFlight() -> T1HostAction {
        transmit(
            .information(sendSequence: sendSequence, more: inFlightMore),
            information: command[acknowledgedLength..<(acknowledgedLength + inFlightLength)])
    }

    private mutating func fail(_ error: T1Error) -> T1HostAction {
        stage = .halted
        clearExchange()
        return .failed(error)
    }

    private mutating func clearExchange() {
        command = []
        acknowledgedLength = 0
        inFlightLength = 0
        inFlightMore = false
        // The block buffers stay: every exchange writes its first block before reading one, and
        // clearing them while the caller still holds the last block would allocate anew.
        response = []
        consecutiveFailures = 0
        resynchronisations = 0
        resynchronisingOnRequest = false
    }

    // MARK: - Blocks

    private var lastSentIsReceiveReady: Bool {
        outgoing.count > 1 && outgoing[1] & 0xC0 == 0x80
    }

    /// Writes the block into ``outgoing`` and asks the caller to send it.
    private mutating func transmit(
        _ kind: T1BlockKind, information: some Collection<UInt8> = EmptyCollection(), waitingTimeMultiplier: UInt8 = 1
    ) -> T1HostAction {
        swap(&outgoing, &previousOutgoing)
        if outgoing.capacity == 0 {
            outgoing.reserveCapacity(3 + T1Block.maximumInformationLength + T1Checksum.crc.length)
        }
        T1Block.encode(
            nodeAddress: nodeAddress, kind: kind, information: information, checksum: checksum, into: &outgoing)
        return .send(outgoing, waitingTimeMultiplier: waitingTimeMultiplier)
    }

    /// The last block again, byte for byte.
    private func resend() -> T1HostAction {
        .send(outgoing, waitingTimeMultiplier: 1)
    }

    private mutating func transmitReceiveReady(error: T1ReceiveReadyError) -> T1HostAction {
        transmit(.receiveReady(sequence: receiveSequence, error: error))
    }
}
