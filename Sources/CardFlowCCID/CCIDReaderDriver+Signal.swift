import CardFlow
import CardFlowCCIDProtocol

/// A CCID reader signals through its family's escape commands (``CCIDReaderDriver/signalDialect``),
/// sent as PC_to_RDR_Escape to the reader itself: no card needs to be on it or powered.
extension CCIDReaderDriver: ReaderSignalling {
    /// Sends the dialect's commands for `signal` one after another and checks each answer.
    ///
    /// - Parameter signal: the light and beep to show.
    /// - Throws: ``/CardFlow/ReaderSignalUnsupported`` when the reader has no dialect or its
    ///   family cannot show `signal`; ``/CardFlow/ReaderSignalRefused`` when the reader answers a
    ///   command with anything but success; ``/CardFlowCCIDProtocol/CCIDDriverError`` when the
    ///   escape itself fails (``/CardFlowCCIDProtocol/CCIDDriverError/slotError(_:state:during:)``
    ///   carries the reader's bStatus and bError); `CancellationError` when the task is cancelled
    ///   (between commands, or during one: the driver aborts it).
    public func signal(_ signal: ReaderSignal) async throws {
        guard let dialect = signalDialect else {
            throw ReaderSignalUnsupported()
        }
        for command in try dialect.commands(for: signal) {
            try Task.checkCancellation()
            switch command.route {
            case .escape:
                let answer = try await driver.escape(command.bytes, slot: slot)
                try dialect.check(answer, to: command)
            }
        }
    }
}
