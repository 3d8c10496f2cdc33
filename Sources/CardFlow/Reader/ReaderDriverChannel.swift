/// A ``CardChannel`` straight to a reader backend's powered card, with no session around it:
/// each command APDU is encoded, handed to ``ReaderDriver/transmit(_:)`` and its answer decoded.
/// Backend failures keep their own error types; task cancellation stops the exchange.
///
/// ```swift
/// let atr = try await driver.powerOn(protocol: nil)
/// let channel = ReaderDriverChannel(driver: driver)
/// let answer = try await channel.send(try CommandAPDU(hex: "00A4040007A000000247100100"))
/// ```
public struct ReaderDriverChannel: CardChannel {
    public let driver: any ReaderDriver

    public init(driver: any ReaderDriver) {
        self.driver = driver
    }

    public func transmit(_ command: CommandAPDU) async throws -> ResponseAPDU {
        try await exchange(command)
    }

    /// ``transmit(_:)``, always inlined: in ``CardSession``'s path a call of its own is a
    /// measurable share of the session's cost.
    @inline(__always)
    func exchange(_ command: CommandAPDU) async throws -> ResponseAPDU {
        try await driver.exchange(command, encoded: command.encoded())
    }

    /// ``exchange(_:)`` of a command already encoded (`encoded` is `command.encoded()`): the
    /// traced path encodes once for the trace and the backend.
    @inline(__always)
    func exchange(_ command: CommandAPDU, encoded: consuming [UInt8]) async throws -> ResponseAPDU {
        try await driver.exchange(command, encoded: consume encoded)
    }

    /// ``exchange(_:encoded:)`` within `limit` (``ReaderDriver/transmit(_:timeLimit:clock:)``),
    /// or without one when it is nil.
    @inline(__always)
    func exchange(_ command: CommandAPDU, encoded: consuming [UInt8], within limit: ExchangeTimeLimit?)
        async throws -> ResponseAPDU
    {
        guard let limit else { return try await exchange(command, encoded: consume encoded) }
        return try ResponseAPDU(
            answer: try await driver.transmit(consume encoded, timeLimit: limit.duration, clock: limit.clock),
            to: command)
    }
}

extension ReaderDriver {
    /// `command` (whose bytes are `encoded`) sent with ``transmit(_:)``, its answer decoded: the
    /// one definition for ``ReaderDriverChannel`` and for ``CardSession/transmit(_:)``'s path
    /// straight to the driver, which is inlined into its callers' modules (hence `@inlinable`).
    @inlinable @inline(__always)
    func exchange(_ command: CommandAPDU, encoded: consuming [UInt8]) async throws -> ResponseAPDU {
        try ResponseAPDU(answer: try await transmit(consume encoded), to: command)
    }
}

/// How long one exchange may take, measured on which clock: a session's APDU timeout.
struct ExchangeTimeLimit: Sendable {
    let duration: Duration
    let clock: any ElapsedClock
}

extension ResponseAPDU {
    /// The answer a reader gave to `command`: data then SW1 SW2.
    ///
    /// - Throws: ``CardChannelError/malformedResponse(_:instruction:)`` for fewer than two bytes.
    @inline(__always)
    public init(answer: consuming [UInt8], to command: CommandAPDU) throws(CardChannelError) {
        guard answer.count >= 2 else {
            throw CardChannelError.malformedResponse(answer, instruction: command.ins)
        }
        // The backend's array is ours alone: dropping SW1 SW2 in place keeps the data without a
        // copy (one removal, so one uniqueness check).
        let count = answer.count
        let sw1 = answer[count - 2]
        let sw2 = answer[count - 1]
        answer.removeLast(2)
        self.init(data: answer, sw1: sw1, sw2: sw2)
    }
}

/// Failures of a card channel that are neither transport nor status-word errors.
public enum CardChannelError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The card's answer is not a response APDU (fewer than two bytes).
    case malformedResponse([UInt8], instruction: UInt8)

    public var description: String {
        switch self {
        case .malformedResponse(let bytes, let instruction):
            "card answered INS \([instruction].hexString) with \(bytes.count) byte(s), not a response APDU"
        }
    }
}
