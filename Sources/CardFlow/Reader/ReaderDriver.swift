/// What a ``Reader`` needs from a reader backend: one card slot, powered on and off, APDUs to
/// its card, and word of the card coming and going.
///
/// CardFlow's sessions, flows, recovery, cooldown, tracing and metrics are written against this
/// protocol only; each backend implements it: the direct USB CCID driver (`CardFlowCCID`), a
/// network reader over the vpcd protocol, PC/SC through pcscd. A multi-slot device is one driver
/// per slot.
///
/// Rules every backend keeps:
/// - Exchanges on one driver are serialised by the backend (a ``Reader`` runs one session at a
///   time, but presence checks may overlap a session's APDUs).
/// - Cancelling the calling task stops an exchange for real (the CCID driver aborts the USB
///   transfer and sends PC_to_RDR_Abort) and throws `CancellationError` or the backend's own
///   cancellation error.
/// - Errors keep the backend's own type; an error that means the card left conforms to
///   ``CardLossClassifying`` so that sessions and flows recover from it.
///
/// ```swift
/// struct EchoDriver: ReaderDriver {
///     let executor = EchoExecutor()   // an actor: its executor serialises the reader's work
///     var unownedExecutor: UnownedSerialExecutor { executor.unownedExecutor }
///     func powerOn(protocol: CardProtocol?) async throws -> [UInt8] { [0x3B, 0x00] }
///     func powerOff() async throws {}
///     func transmit(_ command: [UInt8]) async throws -> [UInt8] { command + [0x90, 0x00] }
///     func presence() async throws -> CardPresence { .present }
///     func nextPresenceNotice(timeout: Duration) async throws -> PresenceNotice { .unsupported }
/// }
/// let reader = Reader(info: ReaderInfo(id: "echo:0", name: "Echo", backend: "echo"), driver: EchoDriver())
/// ```
public protocol ReaderDriver: Sendable {
    /// The serial executor the backend's work runs on. ``Reader`` and ``CardSession`` run on it
    /// too, so that opening a session and an APDU's way to the backend take no actor hop.
    var unownedExecutor: UnownedSerialExecutor { get }

    /// Powers the card on (a cold reset when it already was) and returns its ATR: for a
    /// contactless card the ATR the reader builds (PC/SC part 3). `protocol` asks for T=0 or T=1
    /// on a contact card; nil lets the backend choose (T=1 when card and reader offer it). A
    /// protocol the card or reader cannot run is an error, not the other protocol.
    func powerOn(protocol: CardProtocol?) async throws -> [UInt8]

    /// Powers the card off. Safe when no card is powered.
    func powerOff() async throws

    /// Sends one command APDU to the powered card and returns its answer, data then SW1 SW2,
    /// as the card gave them (61xx and 6Cxx are the session's business, not the backend's).
    /// The command is handed over (`consuming`): a backend may frame it in its own storage.
    func transmit(_ command: consuming [UInt8]) async throws -> [UInt8]

    /// ``transmit(_:)`` within a time limit: when `timeLimit` has passed on `clock` since the
    /// call, the exchange is stopped as cancellation stops it and ``ReaderExchangeTimedOut`` is
    /// thrown. A ``CardSession`` with an APDU timeout sends every APDU this way.
    ///
    /// The default runs ``transmit(_:)`` against a timer (``transmitRacingTimer(_:timeLimit:clock:)``:
    /// two child tasks and a sleep per call). A backend that can bound its own transfers
    /// overrides it and spares an APDU those tasks; it may fall back to the default (for
    /// example when `clock` is not the time its transfers are measured with).
    func transmit(_ command: consuming [UInt8], timeLimit: Duration, clock: any ElapsedClock) async throws -> [UInt8]

    /// Whether a card is on the reader now (asks the reader).
    func presence() async throws -> CardPresence

    /// Waits up to `timeout` for the reader to announce a change of card presence. Throws when
    /// the reader is gone (monitoring stops) or the task is cancelled.
    func nextPresenceNotice(timeout: Duration) async throws -> PresenceNotice
}

/// What a reader said about card presence while ``Reader`` watched it
/// (``ReaderDriver/nextPresenceNotice(timeout:)``).
public enum PresenceNotice: Sendable, Hashable {
    /// Nothing within the timeout.
    case quiet
    /// The reader announced a change: ask it what is there now.
    case changed
    /// The reader announced that the card left. Counted as a removal even when the next
    /// presence check already finds a card (a card swapped faster than the check).
    case removed
    /// The reader announced that a card arrived. Counted as an arrival even when the next
    /// presence check finds the slot empty again (a card put down and taken away, or one of
    /// several swapped cards, faster than the check).
    case arrived
    /// The reader sent a notice that could not be read; it may still stand for a card event,
    /// so the reader is asked (pcsc-lite does the same). The text says what was wrong.
    case unreadable(String)
    /// This reader announces nothing: ``Reader`` polls ``ReaderDriver/presence()`` instead.
    case unsupported
    /// Announcements stopped working (a stalled interrupt pipe, say): poll instead. The text is
    /// logged once as a warning.
    case failed(String)
}

/// The ISO/IEC 7816-3 transmission protocol of a contact card.
public enum CardProtocol: String, Sendable, Hashable, Codable, CaseIterable, CustomStringConvertible {
    /// The half-duplex character protocol.
    case t0
    /// The half-duplex block protocol.
    case t1

    /// "T=0" or "T=1".
    public var description: String { self == .t0 ? "T=0" : "T=1" }
}
