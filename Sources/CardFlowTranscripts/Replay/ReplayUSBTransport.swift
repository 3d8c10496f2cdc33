import CardFlowCCIDProtocol
import Logging

/// A CCID reader that is a recording: the USB pipes of the reader in a pcscd + libccid log.
///
/// It plugs into ``/CardFlowCCIDProtocol/CCIDDriver`` like any ``/CardFlowCCIDProtocol/USBTransport``, so
/// the driver that runs against a reader on a desk runs against the recording. Each command the
/// driver writes is matched against the recorded one (bSeq and
/// host-chosen fields aside, byte for byte, as the module overview lists); when it matches, the reader's recorded answers are
/// read back with the driver's bSeq, and recorded time-outs happen again. When it does not, the
/// replay records a ``ReplayMismatch`` with both frames and the position, and the write fails.
///
/// A transcript in pieces replays piece by piece: at the start of each segment the replay finds
/// the driver's command anywhere in the segment (the recorder's own set-up before it is
/// skipped), and after the last command of a segment it looks in the next one (further ones
/// only when no stand-in applies). Recorded
/// GetSlotStatus polls and Escape queries the driver does not send are skipped; the commands listed in
/// ``ReplayStandIn`` are answered from the recording's state when the segment lacks them.
///
/// For a reader at character level (`characterLevel`), a run of recorded XfrBlocks is the
/// card's I/O line (`ReplayCharacterLine`): the host's XfrBlocks must send the recorded bytes
/// in order, and may wait for the card's characters in steps of their own (wLevelParameter), as
/// long as no step waits for a character the card sent only after more input.
public actor ReplayUSBTransport: USBTransport {
    /// The recording.
    public nonisolated let transcript: Transcript
    private let script: ReplayScript
    private let logger: Logger

    private var segment = 0
    private var step = 0
    private var synchronised = false
    private var pendingAnswers: [[UInt8]] = []
    private var nextInterrupt = 0
    private var cardPowered = false
    private var lastSlotState: CCIDSlotState?
    private let characterLevel: Bool
    /// At character level: the run of XfrBlocks the host is on.
    private var line: ReplayCharacterLine?

    /// Host commands the recording did not accept, in order.
    public private(set) var mismatches: [ReplayMismatch] = []
    /// How many host commands matched a recorded one.
    public private(set) var matchedCommands = 0
    /// The stand-in rules used, in order.
    public private(set) var standIns: [ReplayStandIn] = []

    /// A replay of `transcript`'s frames with its busiest libccid reader index (the reader or
    /// interface the log is about).
    ///
    /// - Parameters:
    ///   - transcript: the recording.
    ///   - characterLevel: the reader exchanges characters (its dwFeatures exchange level is 0):
    ///     XfrBlocks are matched as the card's I/O line, not message by message.
    ///   - logger: where the replay logs.
    public init(
        transcript: Transcript, characterLevel: Bool = false, logger: Logger = Logger(label: "cardflow.replay")
    ) {
        self.transcript = transcript
        script = ReplayScript(transcript, readerIndex: ReplayScript.mainReaderIndex(of: transcript))
        self.characterLevel = characterLevel
        self.logger = logger
    }

    /// Where the replay stands.
    public var position: ReplayPosition { position(segment: segment, step: step) }

    public func bulkOut(_ data: [UInt8], timeout: Duration) async throws(USBTransportError) {
        if Task.isCancelled { throw .cancelled }
        pendingAnswers = []
        if characterLevel, let answer = serveOnTheLine(data) {
            pendingAnswers = [answer]
            return
        }
        if let (foundSegment, foundStep) = locate(data, reach: .nextSegment) {
            try play(segment: foundSegment, step: foundStep, host: data, timeout: timeout)
            return
        }
        if let rule = ReplayStandIn.rule(for: data),
            let answer = rule.answer(
                to: data, answerToReset: transcript.answerToReset, lastSlotState: lastSlotState,
                cardPowered: cardPowered)
        {
            standIns.append(rule)
            logger.debug("replay stands in", metadata: ["rule": "\(rule.rawValue)", "position": "\(position)"])
            absorb(answer)
            pendingAnswers = [answer]
            return
        }
        if let (foundSegment, foundStep) = locate(data, reach: .anyLaterSegment) {
            try play(segment: foundSegment, step: foundStep, host: data, timeout: timeout)
            return
        }
        let mismatch = ReplayMismatch(position: position, expected: nextRecordedCommand(), received: data)
        mismatches.append(mismatch)
        logger.warning("replay mismatch", metadata: ["mismatch": "\(mismatch)"])
        throw .io("replay mismatch: \(mismatch)")
    }

    public func bulkIn(maxLength: Int, timeout: Duration) async throws(USBTransportError) -> [UInt8] {
        if Task.isCancelled { throw .cancelled }
        guard !pendingAnswers.isEmpty else {
            // Nothing (more) was recorded for this command: the reader in the log did not answer.
            throw .timeout(endpoint: "bulk-IN", after: timeout)
        }
        let answer = pendingAnswers.removeFirst()
        guard answer.count <= maxLength else { throw .overflow(endpoint: "bulk-IN") }
        return answer
    }

    public func interruptIn(maxLength: Int, timeout: Duration) async throws(USBTransportError) -> [UInt8] {
        if nextInterrupt < script.interrupts.count {
            defer { nextInterrupt += 1 }
            return Array(script.interrupts[nextInterrupt].prefix(maxLength))
        }
        // The recording has no more card events: the pipe stays quiet for the time asked.
        do {
            try await Task.sleep(for: timeout)
        } catch {
            throw .cancelled
        }
        throw .timeout(endpoint: "interrupt-IN", after: timeout)
    }

    /// GET_DATA_RATES gets the rates libccid logged (``TranscriptHeader/dataRates``), as many as
    /// asked for; other class requests, and GET_DATA_RATES in a log without them, stall: pcscd
    /// logs do not show class requests themselves.
    public func control(_ request: USBControlRequest, timeout: Duration) async throws(USBTransportError) -> [UInt8] {
        let rates = transcript.header.dataRates
        guard case .getDataRates(let count) = CCIDClassRequest(request), !rates.isEmpty else {
            throw .stall(endpoint: "control")
        }
        return CCIDClassRequest.encodeValues(Array(rates.prefix(count)))
    }

    // MARK: - Following the recording

    /// At character level: the answer to the host's XfrBlock from the run of recorded XfrBlocks
    /// it is on (starting one at the next recorded XfrBlock, GetSlotStatus polls and Escape
    /// queries skipped), nil when the line does not bear it out (the caller then matches
    /// message by message, and reports the mismatch).
    private func serveOnTheLine(_ data: [UInt8]) -> [UInt8]? {
        guard data.first == CCIDMessageType.xfrBlock.rawValue, segment < script.segments.count else { return nil }
        if line == nil {
            let steps = script.segments[segment]
            var start = step
            while start < steps.count, Self.isSkippable(steps[start].command) { start += 1 }
            line = ReplayCharacterLine(steps: steps, from: start)
        }
        guard var current = line, let answer = current.serve(data) else {
            // Off the line: the recording stands at the step with the host's next bytes, where
            // matching message by message goes on (and a mismatch names that step).
            if let current = line, current.currentStep > step { step = current.currentStep }
            line = nil
            return nil
        }
        matchedCommands += 1
        synchronised = true
        if current.isUsedUp {
            step = current.endStep
            line = nil
        } else {
            line = current
        }
        absorb(answer)
        return answer
    }

    /// How far ahead of the current segment a command may be found.
    private enum Reach {
        /// The current segment, then anywhere in the next one.
        case nextSegment
        /// Anywhere in the segments after the next one.
        case anyLaterSegment
    }

    /// The recorded command the host's matches: after the current one, skipping GetSlotStatus
    /// polls and Escape queries; at a segment's start, anywhere in it; after a segment's end,
    /// anywhere in the next one (`.nextSegment`) or in one after it (`.anyLaterSegment`, tried
    /// only when no stand-in applies, so a command the segments lack does not jump over them).
    private func locate(_ host: [UInt8], reach: Reach) -> (Int, Int)? {
        guard segment < script.segments.count else { return nil }
        let laterSegments: Range<Int>
        switch reach {
        case .nextSegment:
            let steps = script.segments[segment]
            if synchronised {
                var index = step
                while index < steps.count {
                    if ReplayFrameMatching.matches(host, steps[index].command) { return (segment, index) }
                    guard Self.isSkippable(steps[index].command) else { return nil }
                    index += 1
                }
            } else if let index = steps[step...].firstIndex(where: { ReplayFrameMatching.matches(host, $0.command) }) {
                return (segment, index)
            }
            laterSegments = (segment + 1)..<min(segment + 2, script.segments.count)
        case .anyLaterSegment:
            guard !synchronised || remainingStepsAreSkippable() else { return nil }
            laterSegments = min(segment + 2, script.segments.count)..<script.segments.count
        }
        for later in laterSegments {
            if let index = script.segments[later].firstIndex(where: { ReplayFrameMatching.matches(host, $0.command) }) {
                return (later, index)
            }
        }
        return nil
    }

    /// True when the current segment has nothing left but commands a host need not send.
    private func remainingStepsAreSkippable() -> Bool {
        script.segments[segment][step...].allSatisfy { Self.isSkippable($0.command) }
    }

    /// Recorded commands a host need not send: pcscd's GetSlotStatus polls (its own schedule) and
    /// libccid's Escape queries of vendor features at start-up.
    private static func isSkippable(_ command: RecordedFrame) -> Bool {
        command.messageType == .getSlotStatus || command.messageType == .escape
    }

    private func play(segment found: Int, step index: Int, host: [UInt8], timeout: Duration) throws(USBTransportError) {
        let recorded = script.segments[found][index]
        if found != segment { lastSlotState = nil }
        segment = found
        step = index + 1
        synchronised = true
        matchedCommands += 1
        logger.trace("replay matched", metadata: ["position": "\(position(segment: found, step: index))"])
        if recorded.ending == .writeTimedOut { throw .timeout(endpoint: "bulk-OUT", after: timeout) }
        pendingAnswers = recorded.answers.map { answer in
            var bytes = answer.bytes
            bytes[6] = host[6]
            return bytes
        }
        for answer in pendingAnswers { absorb(answer) }
        // A recorded read time-out needs nothing more: after the answers, bulkIn times out.
    }

    /// Keeps what an answer says about the slot, for later stand-ins.
    private func absorb(_ answer: [UInt8]) {
        guard answer.count >= ccidHeaderLength else { return }
        let state = CCIDSlotState(rawValue: answer[7])
        guard state.command != .timeExtension else { return }
        lastSlotState = CCIDSlotState(icc: state.icc, command: .processed)
        switch state.icc {
        case .presentActive: cardPowered = true
        case .presentInactive, .absent: cardPowered = false
        case .reserved: break
        }
    }

    /// The recorded command the host was expected to send next: the current segment's next one,
    /// or, when the segment is used up, the next segment's first.
    private func nextRecordedCommand() -> RecordedFrame? {
        guard segment < script.segments.count else { return nil }
        let steps = script.segments[segment]
        if step < steps.count { return steps[step].command }
        return script.segments.dropFirst(segment + 1).first { !$0.isEmpty }?.first?.command
    }

    private func position(segment: Int, step: Int) -> ReplayPosition {
        let line = segment < transcript.segments.count ? transcript.segments[segment].firstLine : 0
        return ReplayPosition(segment: segment, command: step, segmentLine: line)
    }
}
