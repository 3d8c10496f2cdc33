import CardFlow
import CardFlowCCIDProtocol

/// A ``/CardFlow/CardChannel`` to the powered card in one slot of a CCID reader.
///
/// It encodes each command APDU, hands it to the ``/CardFlowCCIDProtocol/CCIDDriver`` (which chains, runs T=1 or
/// follows time extensions as the reader needs) and decodes the answer. Driver failures surface
/// as ``/CardFlowCCIDProtocol/CCIDDriverError``; task cancellation as `CancellationError`.
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

    @inline(__always)
    func exchange(_ command: CommandAPDU) async throws -> ResponseAPDU {
        try ResponseAPDU(answer: try await driver.transmit(command.encoded(), slot: slot), to: command)
    }
}
