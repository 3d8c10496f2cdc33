/// How one family of readers is told to show a ``ReaderSignal``: which readers it is, and the
/// vendor commands that light its LED and sound its buzzer. A backend (the USB CCID driver, the
/// PC/SC backend) picks the dialect of its reader from ``ReaderSignalDialects`` and sends the
/// commands the way their ``ReaderSignalCommand/route`` says.
///
/// A family is one type of its own plus one entry in ``ReaderSignalDialects/all``.
///
/// ```swift
/// if let dialect = ReaderSignalDialects.dialect(for: reader.info) {
///     for command in try dialect.commands(for: .success) {
///         let answer = try await escape(command.bytes)          // the backend's escape path
///         try dialect.check(answer, to: command)
///     }
/// }
/// ```
public protocol ReaderSignalDialect: Sendable {
    /// The family's name for logs and errors, e.g. "ACS ACR1252U".
    var family: String { get }

    /// Whether `reader` belongs to this family, by its USB vendor and product ID when the backend
    /// knows them, else by its name (the PC/SC reader name).
    ///
    /// - Parameter reader: the reader's identity as its backend describes it.
    func applies(to reader: ReaderInfo) -> Bool

    /// The commands that show `signal`, in order; empty when the signal shows nothing.
    ///
    /// - Parameter signal: the light and beep wanted.
    /// - Throws: ``ReaderSignalUnsupported`` when the family cannot show part of `signal`.
    func commands(for signal: ReaderSignal) throws(ReaderSignalUnsupported) -> [ReaderSignalCommand]

    /// Checks the reader's answer to one of its commands.
    ///
    /// - Parameters:
    ///   - answer: what the reader answered.
    ///   - command: the command it answered.
    /// - Throws: ``ReaderSignalRefused`` when the answer is not the manual's success answer.
    func check(_ answer: [UInt8], to command: ReaderSignalCommand) throws(ReaderSignalRefused)
}

/// One vendor command of a ``ReaderSignalDialect`` and how it travels.
public struct ReaderSignalCommand: Sendable, Hashable, CustomStringConvertible {
    /// How a command reaches the reader.
    public enum Route: String, Sendable, Hashable {
        /// To the reader itself, no card needed: CCID PC_to_RDR_Escape, or `SCardControl` with
        /// pcsc-lite's escape code `SCARD_CTL_CODE(1)` (libccid turns it into PC_to_RDR_Escape).
        case escape
    }

    /// How the command travels.
    public var route: Route
    /// The command's bytes.
    public var bytes: [UInt8]

    /// A command of `bytes` sent through `route`.
    ///
    /// - Parameters:
    ///   - route: how the command travels.
    ///   - bytes: the command's bytes.
    public init(route: Route = .escape, bytes: [UInt8]) {
        self.route = route
        self.bytes = bytes
    }

    /// "escape E0 00 00 29 01 02".
    public var description: String { "\(route.rawValue) \(bytes.spacedHexString)" }
}
