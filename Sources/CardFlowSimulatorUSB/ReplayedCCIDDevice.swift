import CardFlowCCIDProtocol
import CardFlowSimulator
import CardFlowTranscripts
import Logging

/// A reader that is a recording, as a USB device: the reader of a pcscd + libccid debug log,
/// plugged into the ``USBTestbed`` so that any libusb host — CardFlow's CCID driver, pcscd with
/// libccid, `cardctl` in a child process — talks to it as to the reader on the reporter's desk.
///
/// Each bulk-OUT message goes to a ``/CardFlowTranscripts/ReplayUSBTransport``, which matches it
/// against the recording (bSeq and host-chosen fields aside; stand-ins for what a segment lacks);
/// the recorded answers, with the host's bSeq, complete the host's bulk-IN transfers. A message
/// the recording does not accept gets no answer — the host times out, as with a mute reader — and
/// is kept in ``replay``'s `mismatches` with both frames and the position. The recorded
/// interrupt-IN messages (slot changes) are delivered in their recorded order as the host reads
/// the interrupt pipe; GET_DATA_RATES gets the rates libccid logged, other class requests stall
/// (pcscd logs do not show them).
///
/// ```swift
/// let transcript = try TranscriptParser.parse(logText)
/// let profile = try ReaderProfile.profiles(contentsOfFile: "Tests/Fixtures/ccid-readers/acs.txt")[0]
/// let device = try testbed.attach(try ReplayedCCIDDevice(transcript: transcript, profile: profile))
/// // … a libusb host talks to the device …
/// print(await device.model.replay.mismatches)
/// ```
public actor ReplayedCCIDDevice: EmulatedCCIDDeviceModel {
    public nonisolated let usbIdentity: EmulatedUSBIdentity
    /// The replay that checks the host's messages and gives the recorded answers.
    public nonisolated let replay: ReplayUSBTransport

    private let answers: AsyncStream<[UInt8]>
    private let answerQueue: AsyncStream<[UInt8]>.Continuation
    private var unplugged = false
    private let logger: Logger

    /// A device for `transcript`'s reader, with the USB identity and CCID descriptor of `profile`
    /// (the log's interface, ``/CardFlowTranscripts/TranscriptHeader/interface``; the reader name
    /// of the log when it has one).
    ///
    /// - Throws: ``ReplayedDeviceError/noInterface(_:)`` when the profile lacks the log's interface.
    public init(
        transcript: Transcript, profile: ReaderProfile, logger: Logger = Logger(label: "cardflow.replay")
    ) throws(ReplayedDeviceError) {
        let header = transcript.header
        guard profile.interfaces.indices.contains(header.interface) else { throw .noInterface(header.interface) }
        usbIdentity = EmulatedUSBIdentity(
            vendorID: profile.vendorID, productID: profile.productID, bcdDevice: profile.bcdDevice,
            manufacturer: profile.manufacturer ?? "",
            product: header.readerName ?? profile.product ?? "replayed reader",
            serialNumber: nil, classDescriptor: profile.classDescriptorBytes(interface: header.interface),
            // A CCID interface with three endpoints has the interrupt-IN one.
            hasInterruptEndpoint: profile.interfaces[header.interface].numberOfEndpoints >= 3)
        let descriptor = try? CCIDClassDescriptor(bytes: profile.classDescriptorBytes(interface: header.interface))
        replay = ReplayUSBTransport(
            transcript: transcript, characterLevel: descriptor?.exchangeLevel == .character, logger: logger)
        // Bounded by the recording: only recorded answers are queued.
        (answers, answerQueue) = AsyncStream.makeStream(of: [UInt8].self, bufferingPolicy: .unbounded)
        self.logger = logger
    }

    public func receiveBulkOut(_ bytes: [UInt8]) async throws(USBTransportError) {
        if unplugged { throw .noDevice }
        do {
            // The time limit is the recording's to play back (a recorded write time-out throws
            // it at once); no real wait happens.
            try await replay.bulkOut(bytes, timeout: .seconds(5))
        } catch {
            // A mismatch (kept by the replay) or a recorded time-out: the reader stays silent.
            logger.debug("replayed reader does not answer", metadata: ["error": "\(error)"])
            return
        }
        while let answer = try? await replay.bulkIn(maxLength: Int.max, timeout: .zero) {
            answerQueue.yield(answer)
        }
    }

    /// Waits for the next recorded answer without a time limit of its own; the
    /// ``EmulatedUSBDevice``'s pump ends the wait by cancelling it.
    public nonisolated func nextBulkIn(maxLength: Int, timeout: Duration) async throws(USBTransportError) -> [UInt8] {
        var iterator = answers.makeAsyncIterator()
        guard let answer = await iterator.next() else { throw Task.isCancelled ? .cancelled : .noDevice }
        guard answer.count <= maxLength else { throw .overflow(endpoint: "bulk-IN") }
        return answer
    }

    public func nextInterrupt(maxLength: Int, timeout: Duration) async throws(USBTransportError) -> [UInt8] {
        if unplugged { throw .noDevice }
        return try await replay.interruptIn(maxLength: maxLength, timeout: timeout)
    }

    public func control(_ request: USBControlRequest) async throws(USBTransportError) -> [UInt8] {
        if unplugged { throw .noDevice }
        return try await replay.control(request, timeout: .seconds(1))
    }

    public func unplug() {
        unplugged = true
        answerQueue.finish()
    }
}

/// Why a ``ReplayedCCIDDevice`` cannot be made.
public enum ReplayedDeviceError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The reader profile has no CCID interface with the log's index.
    case noInterface(Int)

    public var description: String {
        switch self {
        case .noInterface(let index): "the reader profile has no interface \(index), which the log talks to"
        }
    }
}
