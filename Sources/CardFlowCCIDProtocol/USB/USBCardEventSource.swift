import Logging

/// Card insertions and removals of one reader, as a stream of ``CCIDInterruptMessage``.
///
/// Readers with an interrupt-IN endpoint are watched through a permanently pending interrupt
/// transfer (RDR_to_PC_NotifySlotChange, RDR_to_PC_HardwareError). Readers without one are
/// polled: `slotStatus` (typically a GetSlotStatus through the ``CCIDDriver``) is called every
/// `pollInterval` (400 ms, as pcscd does), and a change of presence becomes a synthesised
/// NotifySlotChange.
///
/// The stream starts with one ``CCIDInterruptMessage/slotChange(_:)`` holding the state of every
/// slot (`changed` false), taken through `slotStatus`, so that the consumer knows where it
/// starts. It ends when the consumer stops iterating, or when the reader is unplugged.
///
/// ```swift
/// let source = USBCardEventSource(transport: transport) { slot in
///     try await driver.slotStatus(slot: slot).icc != .absent
/// }
/// for await message in source.events() { … }
/// ```
public struct USBCardEventSource: Sendable {
    private let transport: any USBTransport
    private let slotCount: Int
    private let interruptPacketLength: Int?
    private let pollInterval: Duration
    private let logger: Logger
    private let slotStatus: @Sendable (_ slot: UInt8) async throws -> Bool

    /// Pause after a failed interrupt read or poll, so a persistent failure cannot spin.
    private static let retryPause: Duration = .milliseconds(100)
    /// Consecutive failures after which the stream gives up.
    private static let failureLimit = 50
    /// Interrupt reads are resubmitted after this long; the endpoint is watched continuously.
    private static let interruptWait: Duration = .seconds(3600)

    /// - Parameters:
    ///   - transport: the reader's transport.
    ///   - slotCount: bMaxSlotIndex + 1.
    ///   - interruptPacketLength: how many bytes one interrupt read asks for; nil when the
    ///     reader has no interrupt-IN endpoint (then it is polled).
    ///   - pollInterval: the polling period without interrupt endpoint.
    ///   - logger: where the stream logs.
    ///   - slotStatus: whether a card is present in a slot (GetSlotStatus).
    public init(
        transport: any USBTransport, slotCount: Int = 1, interruptPacketLength: Int?,
        pollInterval: Duration = .milliseconds(400), logger: Logger = Logger(label: "cardflow.usb.cards"),
        slotStatus: @escaping @Sendable (_ slot: UInt8) async throws -> Bool
    ) {
        self.transport = transport
        self.slotCount = max(slotCount, 1)
        self.interruptPacketLength = interruptPacketLength
        self.pollInterval = pollInterval
        self.logger = logger
        self.slotStatus = slotStatus
    }

    /// A source for a libusb reader: slot count and interrupt endpoint come from its description.
    public init(
        transport: LibUSBTransport, pollInterval: Duration = .milliseconds(400),
        logger: Logger = Logger(label: "cardflow.usb.cards"),
        slotStatus: @escaping @Sendable (_ slot: UInt8) async throws -> Bool
    ) {
        let endpoints = transport.reader.endpoints
        // NotifySlotChange needs 1 + ceil(slots / 4) bytes; read at least one whole packet.
        let needed = 1 + (transport.reader.descriptor.slotCount + 3) / 4
        self.init(
            transport: transport, slotCount: transport.reader.descriptor.slotCount,
            interruptPacketLength: endpoints.interruptIn == nil
                ? nil : max(needed, endpoints.interruptInMaxPacketSize ?? 8),
            pollInterval: pollInterval, logger: logger, slotStatus: slotStatus)
    }

    /// The card events; each call starts a new watch.
    public func events() -> AsyncStream<CCIDInterruptMessage> {
        let (stream, continuation) = AsyncStream.makeStream(of: CCIDInterruptMessage.self)
        let task = Task { [self] in
            let present = await snapshot()
            if let present {
                continuation.yield(
                    .slotChange(
                        present.enumerated().map {
                            .init(slot: $0.offset, cardPresent: $0.element, changed: false)
                        }))
            }
            if let interruptPacketLength {
                await watchInterrupts(packetLength: interruptPacketLength, from: present, into: continuation)
            } else {
                await poll(from: present, into: continuation)
            }
            continuation.finish()
        }
        continuation.onTermination = { _ in task.cancel() }
        return stream
    }

    /// Presence of every slot, nil when it cannot be read.
    private func snapshot() async -> [Bool]? {
        var present: [Bool] = []
        for slot in 0..<slotCount {
            do {
                present.append(try await slotStatus(UInt8(slot)))
            } catch {
                logger.debug("slot status unavailable", metadata: ["slot": "\(slot)", "error": "\(error)"])
                return nil
            }
        }
        return present
    }

    private func watchInterrupts(
        packetLength: Int, from initial: [Bool]?,
        into continuation: AsyncStream<CCIDInterruptMessage>.Continuation
    ) async {
        var failures = 0
        var known = initial
        var oddMessages = 0
        while !Task.isCancelled {
            let bytes: [UInt8]
            do throws(USBTransportError) {
                bytes = try await transport.interruptIn(maxLength: packetLength, timeout: Self.interruptWait)
                failures = 0
            } catch .timeout {
                continue
            } catch .cancelled, .noDevice {
                return
            } catch {
                failures += 1
                if isTransportGone || failures >= Self.failureLimit {
                    logger.warning("card events stopped", metadata: ["error": "\(error)"])
                    return
                }
                logger.debug("interrupt read failed; retrying", metadata: ["error": "\(error)"])
                try? await Task.sleep(for: Self.retryPause)
                continue
            }
            do {
                let message = try CCIDInterruptMessage(decoding: bytes, slotCount: slotCount)
                if case .slotChange(let changes) = message { known = changes.map(\.cardPresent) }
                continuation.yield(message)
            } catch {
                // Since CCID 1.6.2 pcsc-lite does not assume every notification is a slot change:
                // an unknown or short message is logged and the reader is asked, so an event the
                // message may have stood for is not lost and watching goes on.
                oddMessages += 1
                logger.log(
                    level: oddMessages == 1 ? .warning : .debug,
                    "unexpected interrupt message; asking the reader for the slot status",
                    metadata: ["error": "\(error)", "count": "\(oddMessages)"])
                guard let present = await snapshot() else { continue }
                if present != known {
                    continuation.yield(
                        .slotChange(
                            present.enumerated().map { slot, isPresent in
                                .init(
                                    slot: slot, cardPresent: isPresent,
                                    changed: known.map { $0[slot] != isPresent } ?? true)
                            }))
                }
                known = present
            }
        }
    }

    private func poll(from initial: [Bool]?, into continuation: AsyncStream<CCIDInterruptMessage>.Continuation) async {
        var previous = initial
        var failures = 0
        while !Task.isCancelled {
            do {
                try await Task.sleep(for: failures > 0 ? max(pollInterval, Self.retryPause) : pollInterval)
            } catch {
                return
            }
            var present: [Bool] = []
            do {
                for slot in 0..<slotCount { present.append(try await slotStatus(UInt8(slot))) }
                failures = 0
            } catch {
                if Self.isUnplug(error) || error is CancellationError || isTransportGone { return }
                failures += 1
                if failures >= Self.failureLimit {
                    logger.warning("card polling stopped", metadata: ["error": "\(error)"])
                    return
                }
                logger.debug("slot status poll failed", metadata: ["error": "\(error)"])
                continue
            }
            if let previous, previous != present {
                continuation.yield(
                    .slotChange(
                        present.enumerated().map {
                            .init(slot: $0.offset, cardPresent: $0.element, changed: $0.element != previous[$0.offset])
                        }))
            }
            previous = present
        }
    }

    private var isTransportGone: Bool {
        guard let transport = transport as? LibUSBTransport else { return false }
        return transport.isClosed || transport.isDeviceGone
    }

    /// Whether an error from `slotStatus` means the reader is gone.
    static func isUnplug(_ error: any Error) -> Bool {
        if let error = error as? USBTransportError { return error == .noDevice }
        if let error = error as? CCIDDriverError, case .transport(.noDevice, _) = error { return true }
        return false
    }
}
