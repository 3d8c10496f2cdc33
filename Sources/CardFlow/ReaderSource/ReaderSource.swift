/// A reader backend as a plug: it serves one selector scheme (`usb`, `pcsc`, `vpcd`, `sim`, …),
/// checks that scheme's selectors and opens the readers they name. Every backend provides one
/// (`USBReaderSource` in CardFlowCCID, `PCSCReaderSource` in CardFlowPCSC, `VPCDReaderSource` in
/// CardFlowVPCD, `SimulatorReaderSource` in CardFlowSimulatorReaders); a program holds one list of
/// the sources it links and hands it to ``ReaderSelector/init(parsing:sources:)`` (cardctl) or
/// to the daemon (cardd). Adding a backend is one new target and one entry in that list.
///
/// ```swift
/// let sources: [any ReaderSource] = [USBReaderSource(), PCSCReaderSource(), SimulatorReaderSource()]
/// let selector = try ReaderSelector(parsing: "sim:iso7816", sources: sources)
/// let opened = try await selector.open(options: ReaderSourceOptions(logger: logger))
/// defer { Task { try await opened.close() } }
/// let reader = opened.readers[0]
/// ```
public protocol ReaderSource: Sendable {
    /// The selectors this source serves are `scheme`, `scheme:…` and `scheme,…`; its readers'
    /// ``ReaderInfo/backend`` is `scheme` too.
    var scheme: String { get }
    /// The selector forms, as error messages list them: `sim[:CARD][,option=value...]`.
    var forms: [String] { get }
    /// Checks a selector of this source's scheme without opening anything.
    ///
    /// - Parameter selector: the whole selector text.
    /// - Throws: what is wrong with it (the parser reports it as the reason of
    ///   ``ReaderSelectorError/invalid(_:reason:sourceForms:)``).
    func check(_ selector: String) throws
    /// Whether a reader is one the selector names (by default: any reader of this backend).
    ///
    /// - Parameters:
    ///   - info: the reader.
    ///   - selector: the whole selector text, already checked.
    func accepts(_ info: ReaderInfo, selector: String) -> Bool
    /// Opens the readers a selector of this source's scheme names.
    ///
    /// - Parameters:
    ///   - selector: the whole selector text, already checked.
    ///   - options: loggers, driver settings, the first reader number and whether to watch
    ///     readers come and go (``ReaderSourceOptions/watch``).
    func open(_ selector: String, options: ReaderSourceOptions) async throws -> OpenedReaders
}

extension ReaderSource {
    /// Whether `text` is one of this source's selectors (by its scheme alone).
    public func serves(_ text: String) -> Bool {
        text == scheme || text.hasPrefix(scheme + ":") || text.hasPrefix(scheme + ",")
    }

    /// Any reader of this backend.
    public func accepts(_ info: ReaderInfo, selector: String) -> Bool {
        info.backend == scheme
    }
}
