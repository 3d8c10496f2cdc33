import CardFlowCCIDProtocol

/// One thing the log's application (through pcscd) asked of the reader, with how it ended
/// there. ``operations(of:)`` reads them from a transcript; the replay check asks the same of
/// CardFlow's driver.
public struct TranscriptOperation: Sendable, Hashable, CustomStringConvertible {
    /// What was asked.
    public enum Request: Sendable, Hashable {
        /// Is there a card? (GetSlotStatus)
        case slotStatus
        /// Power the card on (IccPowerOn and whatever set-up follows).
        case powerOn
        /// Power the card off (IccPowerOff).
        case powerOff
        /// Send this command APDU.
        case transmit([UInt8])
    }

    /// What was asked.
    public let request: Request
    /// How it ended in the log.
    public let recordedOutcome: TranscriptOutcome
    /// The segment it belongs to (0-based).
    public let segment: Int

    public var description: String {
        switch request {
        case .slotStatus: "slot status → \(recordedOutcome)"
        case .powerOn: "power on → \(recordedOutcome)"
        case .powerOff: "power off → \(recordedOutcome)"
        case .transmit(let apdu): "APDU \(apdu.map(hexByte).joined(separator: " ")) → \(recordedOutcome)"
        }
    }

    /// The operations of a transcript, segment by segment: each `APDU:` line with its `SW:` line
    /// (or the error that ended it), and each GetSlotStatus, IccPowerOn and IccPowerOff that
    /// pcscd sent outside a transmit, with the recorded answer or time-out.
    ///
    /// Where a piece of log starts after the `APDU:` line, the command is read from libccid's
    /// T=1 I-block (`sending:`, its INF field, when not chained) and the response from the card's
    /// (`received:`), unless an `SW:` line follows. An operation with no recorded CCID command
    /// (the piece ends before its messages) is left out: there is nothing to replay it against.
    public static func operations(of transcript: Transcript) -> [TranscriptOperation] {
        var operations: [TranscriptOperation] = []
        for (index, segment) in transcript.segments.enumerated() {
            var open: OpenOperation?
            func close() {
                if let operation = open?.closed(segment: index) { operations.append(operation) }
                open = nil
            }
            for event in segment.events {
                switch event {
                case .commandAPDU(let apdu):
                    close()
                    open = OpenOperation(request: .transmit(apdu))
                case .responseAPDU(let response):
                    open?.response = response
                    open?.responseFromBlocks = false
                case .t1Sent(let block):
                    guard !(open?.isTransmit ?? false) || open?.response != nil,
                        let apdu = Self.unchainedInformation(block)
                    else { continue }
                    close()
                    open = OpenOperation(request: .transmit(apdu))
                    open?.responseFromBlocks = true
                case .t1Received(let block):
                    if open?.responseFromBlocks == true, let response = Self.unchainedInformation(block) {
                        open?.response = response
                    }
                case .frame(let frame) where frame.direction == .bulkOut:
                    if let request = Self.request(for: frame.messageType),
                        !(open?.isTransmit ?? false) || open?.response != nil
                    {
                        close()
                        open = OpenOperation(request: request)
                    }
                    open?.commands.append(frame)
                case .frame(let frame):
                    open?.answers.append(frame)
                case .failure(let failure):
                    open?.failures.append(failure.kind)
                default: continue
                }
            }
            close()
        }
        return operations
    }

    /// The INF field of an unchained T=1 I-block (NAD, PCB, LEN, INF, one-byte LRC), if it is one.
    private static func unchainedInformation(_ block: [UInt8]) -> [UInt8]? {
        guard block.count >= 4, block[1] & 0x80 == 0, block[1] & 0x20 == 0, Int(block[2]) == block.count - 4 else {
            return nil
        }
        return Array(block[3..<(block.count - 1)])
    }

    private static func request(for type: CCIDMessageType) -> Request? {
        switch type {
        case .getSlotStatus: .slotStatus
        case .iccPowerOn: .powerOn
        case .iccPowerOff: .powerOff
        default: nil
        }
    }
}

/// An operation whose events are still being read.
private struct OpenOperation {
    let request: TranscriptOperation.Request
    var commands: [RecordedFrame] = []
    var answers: [RecordedFrame] = []
    var failures: [TranscriptFailure.Kind] = []
    var response: [UInt8]?
    /// The command came from a T=1 block, so the card's block gives the response until an `SW:` line does.
    var responseFromBlocks = false

    var isTransmit: Bool { if case .transmit = request { true } else { false } }

    func closed(segment: Int) -> TranscriptOperation? {
        guard !commands.isEmpty else { return nil }
        return TranscriptOperation(request: request, recordedOutcome: outcome, segment: segment)
    }

    private var outcome: TranscriptOutcome {
        // A time-out or USB failure ends the operation whatever came before it.
        if let usb = failures.first(where: { [.writeTimeout, .readTimeout, .usbFailure].contains($0) }) {
            return .failure(usb)
        }
        switch request {
        case .transmit:
            guard let response else { return .unknown }
            // pcscd passes an empty answer on as a success when nothing failed on its side.
            if !response.isEmpty || failures.isEmpty { return .bytes(response) }
            return .failure(failureKind ?? .notTransacted)
        case .slotStatus:
            guard let answer = answers.last else { return .unknown }
            return CCIDSlotState(rawValue: answer.bytes[7]).icc == .absent ? .noCard : .done
        case .powerOn:
            guard let answer = answers.first(where: { $0.messageType == .dataBlock }) else { return .unknown }
            if answer.bytes[7] & 0x40 != 0 {
                return CCIDSlotState(rawValue: answer.bytes[7]).icc == .absent
                    ? .noCard : .failure(failureKind ?? .notTransacted)
            }
            return .bytes(Array(answer.payload))
        case .powerOff:
            return answers.isEmpty ? .unknown : .done
        }
    }

    /// The kind of failure the reader's last answer reports (bError of a failed command, or of
    /// an empty DataBlock), else what libccid logged.
    private var failureKind: TranscriptFailure.Kind? {
        if let answer = answers.last {
            switch answer.bytes[8] {
            case 0xFE: return .cardAbsentOrMute
            case 0xF6: return .protocolNotSupported
            default: break
            }
        }
        return failures.first
    }
}
