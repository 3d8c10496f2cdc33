/// A reader backend beyond the built-in ones (usb, vpcd, pcsc) that serves one selector scheme:
/// the simulator's `sim:` (`SimulatorReaderSource` in CardSimulatorReaders) is one. Programs
/// pass the sources they link to ``ReaderSelector/init(parsing:sources:)`` and to the daemon,
/// so a library that takes selectors links no backend it was not given.
///
/// ```swift
/// let selector = try ReaderSelector(parsing: "sim:iso7816", sources: [SimulatorReaderSource()])
/// if case .source(let source, let text) = selector {
///     let opened = try await source.open(text, options: ReaderSourceOptions(logger: logger))
///     defer { Task { try await opened.close() } }
///     …
/// }
/// ```
public protocol ReaderSource: Sendable {
    /// The selectors this source serves are `scheme`, `scheme:…` and `scheme,…`; its readers'
    /// ``/CardFlow/ReaderInfo/backend`` is `scheme` too.
    var scheme: String { get }
    /// The selector forms, as error messages list them: `sim[:CARD][,option=value...]`.
    var syntax: String { get }
    /// Checks a selector of this source's scheme without opening anything.
    ///
    /// - Parameter selector: the whole selector text.
    /// - Throws: what is wrong with it (the parser reports it as the reason of
    ///   ``ReaderSelectorError/invalid(_:reason:sourceForms:)``).
    func check(_ selector: String) throws
    /// Opens the readers a selector of this source's scheme names.
    ///
    /// - Parameters:
    ///   - selector: the whole selector text, already checked.
    ///   - options: loggers, driver settings and the first reader number.
    func open(_ selector: String, options: ReaderSourceOptions) async throws -> OpenedReaders
}

extension ReaderSource {
    /// Whether `text` is one of this source's selectors (by its scheme alone).
    public func serves(_ text: String) -> Bool {
        text == scheme || text.hasPrefix(scheme + ":") || text.hasPrefix(scheme + ",")
    }
}
