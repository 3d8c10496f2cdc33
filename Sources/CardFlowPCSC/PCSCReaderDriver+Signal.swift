import CardFlow
import CardFlowPCSCLite

/// A PC/SC reader signals through its family's escape commands (``PCSCReaderDriver/signalDialect``),
/// each an `SCardControl` with ``/CardFlowPCSCLite/PCSCControlCode/escape`` on a connection of its
/// own to the reader (`SCARD_SHARE_DIRECT`): it needs no card, and it works beside this driver's
/// card connection and other clients' shared ones. libccid passes the bytes on as
/// PC_to_RDR_Escape only when its Info.plist's `ifdDriverOptions` allows it (bit 0x01); otherwise
/// pcscd answers `SCARD_E_NOT_TRANSACTED`.
extension PCSCReaderDriver: ReaderSignalling {
    /// Sends the dialect's commands for `signal` one after another and checks each answer.
    ///
    /// - Parameter signal: the light and beep to show.
    /// - Throws: ``/CardFlow/ReaderSignalUnsupported`` when the reader has no dialect or its
    ///   family cannot show `signal`; ``/CardFlow/ReaderSignalRefused`` when the reader answers a
    ///   command with anything but success; ``/CardFlowPCSCLite/PCSCError`` from `SCardConnect`
    ///   or `SCardControl`; `CancellationError` when the task is cancelled before a command
    ///   (PC/SC cannot interrupt one under way).
    public func signal(_ signal: ReaderSignal) async throws {
        guard let dialect = signalDialect else {
            throw ReaderSignalUnsupported()
        }
        let commands = try dialect.commands(for: signal)
        guard !commands.isEmpty else { return }
        try Task.checkCancellation()
        let connection = try await context.connectDirect(reader: reader)
        do {
            for command in commands {
                try Task.checkCancellation()
                switch command.route {
                case .escape:
                    let answer = try await connection.control(.escape, command.bytes)
                    try dialect.check(answer, to: command)
                }
            }
        } catch {
            try? await connection.disconnect()
            throw error
        }
        try await connection.disconnect()
    }
}
