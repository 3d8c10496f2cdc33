import CardFlowCCIDProtocol
import Logging

/// Runs CardFlow's CCID driver against a recording and compares, operation by operation, what
/// it returns with what pcscd returned in the log.
///
/// The driver is asked what the log's application asked (``TranscriptOperation``); the replay
/// reader (``ReplayUSBTransport``) checks every CCID message the driver sends against the
/// recording. A segment whose first operation is a transmit gets a power-on first, answered
/// from the recording (``ReplayStandIn/powerOn``), because the driver only transmits to a
/// powered card.
///
/// ```swift
/// let report = await TranscriptReplayCheck.run(transcript, descriptor: descriptor)
/// for result in report.results where !result.agrees { print(result) }
/// ```
public enum TranscriptReplayCheck {
    /// Replays `transcript` through a ``/CardFlowCCIDProtocol/CCIDDriver`` for a reader with `descriptor`.
    ///
    /// - Parameters:
    ///   - transcript: the recording.
    ///   - descriptor: the reader's CCID class descriptor (from `Tests/Fixtures/ccid-readers`
    ///     when the log has none).
    ///   - configuration: the driver's configuration (its defaults when omitted).
    ///   - logger: where the driver and the replay log.
    public static func run(
        _ transcript: Transcript, descriptor: CCIDClassDescriptor,
        configuration: CCIDDriverConfiguration = CCIDDriverConfiguration(),
        logger: Logger = Logger(label: "cardflow.replay")
    ) async -> TranscriptReplayReport {
        // The driver as it would be opened on USB: with the quirk table's corrections for the
        // log's reader (its firmware version is not in the log: the newest is assumed).
        let profile = quirkProfile(of: transcript.header)
        let descriptor = profile.applied(to: descriptor)
        let configuration = profile.applied(to: configuration)
        let replay = ReplayUSBTransport(
            transcript: transcript, characterLevel: descriptor.exchangeLevel == .character, logger: logger)
        let driver = CCIDDriver(
            transport: replay, descriptor: descriptor, interfaceNumber: UInt8(clamping: transcript.header.interface),
            configuration: configuration, logger: logger)
        let results = await results(of: transcript, on: driver)
        return TranscriptReplayReport(
            results: results, mismatches: await replay.mismatches, matchedCommands: await replay.matchedCommands,
            standIns: await replay.standIns)
    }

    /// The quirk table's profile for the log's reader, empty when the log names no VID:PID.
    static func quirkProfile(of header: TranscriptHeader) -> CCIDReaderQuirkProfile {
        guard let vendorID = header.vendorID, let productID = header.productID else { return CCIDReaderQuirkProfile() }
        return CCIDReaderQuirkTable.lookup(vendorID: vendorID, productID: productID, bcdDevice: .max)
    }

    /// Asks `driver` what the log's application asked, operation by operation, and returns what it
    /// answered: for a driver on any transport to a replay of `transcript` — in process, or a
    /// replayed reader on the emulated USB bus (CardFlowSimulatorUSB's `ReplayedCCIDDevice`)
    /// reached through libusb.
    public static func results(of transcript: Transcript, on driver: CCIDDriver) async
        -> [TranscriptReplayReport.Result]
    {
        var results: [TranscriptReplayReport.Result] = []
        var powered = false
        let operations = TranscriptOperation.operations(of: transcript)
        var index = 0
        while index < operations.count {
            let operation = operations[index]
            index += 1
            let actual: TranscriptOutcome
            if case .transmit = operation.request, !powered {
                let setUp = await outcome { .bytes(try await driver.powerOn()) }
                if case .bytes = setUp {
                    powered = true
                    actual = await perform(operation.request, on: driver)
                } else {
                    actual = setUp
                }
            } else {
                actual = await perform(operation.request, on: driver)
            }
            switch (operation.request, actual) {
            case (.powerOn, .bytes): powered = true
            case (.powerOff, _): powered = false
            default: break
            }
            // The driver's T=0 transport may have sent the follow-ups the application sent next.
            if case .bytes(let answer) = actual, actual != operation.recordedOutcome {
                let covered = TranscriptT0Transport.followUps(after: index - 1, in: operations, driverAnswer: answer)
                if covered > 0 {
                    results.append(
                        .init(operation: operation, outcome: actual, t0Transport: .followedUp(operations: covered)))
                    for followUp in operations[index..<(index + covered)] {
                        results.append(.init(operation: followUp, outcome: actual, t0Transport: .sentByDriver))
                    }
                    index += covered
                    continue
                }
            }
            results.append(TranscriptReplayReport.Result(operation: operation, outcome: actual))
        }
        return results
    }

    private static func perform(_ request: TranscriptOperation.Request, on driver: CCIDDriver) async
        -> TranscriptOutcome
    {
        switch request {
        case .slotStatus:
            await outcome { try await driver.slotStatus().icc == .absent ? .noCard : .done }
        case .powerOn:
            await outcome { .bytes(try await driver.powerOn()) }
        case .powerOff:
            await outcome {
                try await driver.powerOff()
                return .done
            }
        case .transmit(let apdu):
            await outcome { .bytes(try await driver.transmit(apdu)) }
        }
    }

    private static func outcome(_ body: () async throws -> TranscriptOutcome) async -> TranscriptOutcome {
        do {
            return try await body()
        } catch let error as CCIDDriverError {
            return outcome(of: error)
        } catch {
            return .otherError(String(describing: error))
        }
    }

    /// The kind of failure a driver error is, in the log's terms.
    public static func outcome(of error: CCIDDriverError) -> TranscriptOutcome {
        switch error {
        case .noCard, .cardMute, .slotError(.iccMute, _, _): .failure(.cardAbsentOrMute)
        case .slotError(.protocolNotSupported, _, _): .failure(.protocolNotSupported)
        case .transport(.timeout(let endpoint, _), _): .failure(endpoint == "bulk-OUT" ? .writeTimeout : .readTimeout)
        case .transport(.noDevice, _), .transport(.stall, _): .failure(.usbFailure)
        default: .otherError(error.description)
        }
    }
}
