import CardFlow
import CardFlowCCIDProtocol
import Logging
import Metrics

/// One slot of a CCID reader as a CardFlow ``/CardFlow/ReaderDriver``: the direct USB CCID driver (or the
/// same driver on the simulator's in-memory transport) behind ``/CardFlow/Reader``.
///
/// Errors stay ``/CardFlowCCIDProtocol/CCIDDriverError``s (they classify card loss, see ``/CardFlow/CardLossClassifying``).
/// Presence notices come from the interrupt endpoint's NotifySlotChange messages for this slot.
///
/// ```swift
/// let reader = Reader(info: info, driver: CCIDReaderDriver(driver: driver, slot: 0))
/// ```
public struct CCIDReaderDriver: ReaderDriver {
    /// The device's driver, shared by the readers of all its slots.
    public let driver: CCIDDriver
    /// The slot this reader is.
    public let slot: UInt8
    /// How this reader's family shows a ``/CardFlow/ReaderSignal`` (its LED and buzzer escape
    /// commands), nil when CardFlow knows none for it.
    public let signalDialect: (any ReaderSignalDialect)?

    /// A reader without signal commands (``/CardFlow/Reader/signal(_:)`` throws
    /// ``/CardFlow/ReaderSignalUnsupported``).
    ///
    /// - Parameters:
    ///   - driver: the device's driver.
    ///   - slot: the slot this reader is.
    public init(driver: CCIDDriver, slot: UInt8 = 0) {
        self.init(driver: driver, slot: slot, signalDialect: nil)
    }

    /// - Parameters:
    ///   - driver: the device's driver.
    ///   - slot: the slot this reader is.
    ///   - signalDialect: the reader family's signal commands, nil for none
    ///     (``/CardFlow/Reader/signal(_:)`` then throws ``/CardFlow/ReaderSignalUnsupported``).
    public init(driver: CCIDDriver, slot: UInt8, signalDialect: (any ReaderSignalDialect)?) {
        self.driver = driver
        self.slot = slot
        self.signalDialect = signalDialect
    }

    /// The CCID driver's executor: sessions and the driver share it.
    public var unownedExecutor: UnownedSerialExecutor { driver.unownedExecutor }

    public func powerOn(protocol cardProtocol: CardProtocol?) async throws -> [UInt8] {
        try await driver.powerOn(slot: slot, protocolPreference: cardProtocol.map(Self.preference))
    }

    public func powerOff() async throws {
        try await driver.powerOff(slot: slot)
    }

    @inline(__always)
    public func transmit(_ command: consuming [UInt8]) async throws -> [UInt8] {
        try await driver.transmit(consume command, slot: slot)
    }

    /// Held to `timeLimit` by the driver's own transfer timeouts (and aborted as on
    /// cancellation when it passes), with no timer task, when `clock` and the driver both read
    /// real time; otherwise against a timer on `clock`
    /// (``/CardFlow/ReaderDriver/transmitRacingTimer(_:timeLimit:clock:)``).
    public func transmit(_ command: consuming [UInt8], timeLimit: Duration, clock: any ElapsedClock) async throws
        -> [UInt8]
    {
        guard clock.measuresRealTime, driver.measuresRealTime else {
            return try await transmitRacingTimer(consume command, timeLimit: timeLimit, clock: clock)
        }
        do {
            return try await driver.transmit(consume command, slot: slot, timeLimit: timeLimit)
        } catch CCIDDriverError.exchangeTimeLimitExceeded(let limit, _) where limit == timeLimit {
            throw ReaderExchangeTimedOut(limit: timeLimit)
        }
    }

    public func presence() async throws -> CardPresence {
        try await driver.slotStatus(slot: slot).icc == .absent ? .absent : .present
    }

    public func nextPresenceNotice(timeout: Duration) async throws -> PresenceNotice {
        do {
            guard let message = try await driver.readInterrupt(slot: slot, timeout: timeout) else { return .quiet }
            if Self.announcesRemoval(message, slot: slot) { return .removed }
            return Self.announcesArrival(message, slot: slot) ? .arrived : .changed
        } catch CCIDDriverError.transport(.noInterruptEndpoint, _) {
            return .unsupported
        } catch CCIDDriverError.malformedResponse(let error, _) {
            return .unreadable("\(error)")
        } catch CCIDDriverError.transport(.cancelled, _) {
            throw CancellationError()
        } catch CCIDDriverError.transport(let error, _) where error != .noDevice {
            return .failed("\(error)")
        }
    }

    /// Whether a NotifySlotChange says the card in `slot` changed and is gone.
    public static func announcesRemoval(_ message: CCIDInterruptMessage, slot: UInt8) -> Bool {
        guard case .slotChange(let changes) = message else { return false }
        return changes.contains { $0.slot == Int(slot) && $0.changed && !$0.cardPresent }
    }

    /// Whether a NotifySlotChange says the card in `slot` changed and is there: a card arrived.
    public static func announcesArrival(_ message: CCIDInterruptMessage, slot: UInt8) -> Bool {
        guard case .slotChange(let changes) = message else { return false }
        return changes.contains { $0.slot == Int(slot) && $0.changed && $0.cardPresent }
    }

    static func preference(_ cardProtocol: CardProtocol) -> ProtocolPreference {
        switch cardProtocol {
        case .t0: .t0
        case .t1: .t1
        }
    }
}

extension Reader {
    /// A reader on one slot of a CCID driver:
    /// ``/CardFlow/Reader/init(info:driver:logger:metricsFactory:presencePollInterval:presenceClock:)``
    /// with a ``CCIDReaderDriver`` whose signal dialect is the one
    /// ``/CardFlow/ReaderSignalDialects`` names for `info` (by USB vendor and product ID).
    public init(
        info: ReaderInfo, driver: CCIDDriver, slot: UInt8 = 0, logger: Logger = Logger(label: "cardflow.reader"),
        metricsFactory: any MetricsFactory = MetricsSystem.factory
    ) {
        self.init(
            info: info,
            driver: CCIDReaderDriver(
                driver: driver, slot: slot, signalDialect: ReaderSignalDialects.dialect(for: info)),
            logger: logger,
            metricsFactory: metricsFactory)
    }

    /// The CCID driver and slot behind this reader, nil when another backend drives it.
    public nonisolated var ccid: CCIDReaderDriver? { driver as? CCIDReaderDriver }
}
