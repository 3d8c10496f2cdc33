import CCID

/// A ``CardChannel`` to the powered card in one slot of a CCID reader.
///
/// It encodes each command APDU, hands it to the ``CCIDDriver`` (which chains, runs T=1 or
/// follows time extensions as the reader needs) and decodes the answer. Driver failures surface
/// as ``CCIDDriverError``; task cancellation as `CancellationError`.
///
/// ```swift
/// let atr = try await driver.powerOn()
/// let channel = CCIDCardChannel(driver: driver)
/// let answer = try await channel.send(try CommandAPDU(hex: "00A4040007A000000247100100"))
/// ```
public struct CCIDCardChannel: CardChannel {
    public let driver: CCIDDriver
    public let slot: UInt8

    public init(driver: CCIDDriver, slot: UInt8 = 0) {
        self.driver = driver
        self.slot = slot
    }

    public func transmit(_ command: CommandAPDU) async throws -> ResponseAPDU {
        try await exchange(command)
    }

    /// ``transmit(_:)``, always inlined: in ``CardSession``'s path a call of its own is a
    /// measurable share of the session's cost.
    @inline(__always)
    func exchange(_ command: CommandAPDU) async throws -> ResponseAPDU {
        var bytes = try await driver.transmit(command.encoded(), slot: slot)
        guard bytes.count >= 2 else {
            throw CardChannelError.malformedResponse(bytes, instruction: command.ins)
        }
        // The driver's array is ours alone: dropping SW1 SW2 in place keeps the data without a copy.
        let sw2 = bytes.removeLast()
        let sw1 = bytes.removeLast()
        return ResponseAPDU(data: bytes, sw1: sw1, sw2: sw2)
    }
}

/// Failures of a card channel that are neither transport nor status-word errors.
public enum CardChannelError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The card's answer is not a response APDU (fewer than two bytes).
    case malformedResponse([UInt8], instruction: UInt8)

    public var description: String {
        switch self {
        case .malformedResponse(let bytes, let instruction):
            "card answered INS \(String(format2: instruction)) with \(bytes.count) byte(s), not a response APDU"
        }
    }
}

extension String {
    init(format2 byte: UInt8) {
        let text = String(byte, radix: 16, uppercase: true)
        self = text.count == 1 ? "0" + text : text
    }
}
