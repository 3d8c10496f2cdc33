/// What a reader selector names, one syntax for `cardctl --reader` and cardd's `"readers"`: a
/// scheme and the text the ``ReaderSource`` of that scheme checks and opens. With the sources
/// cardctl and cardd list:
///
/// - `usb` (every USB CCID reader; card commands use the first), `usb:VVVV:PPPP` (vendor and
///   product id in hex), `usb:BUS:DEV` (decimal), `usb:serial=XYZ` (CardFlowCCID);
/// - `vpcd`, `vpcd:PORT`, `vpcd:HOST:PORT`: a network reader, listening (on 127.0.0.1:35963 by
///   default) for a vpcd card side such as vsmartcard's `vicc` (CardFlowVPCD);
/// - `pcsc` (every reader pcscd serves; card commands use the first), `pcsc:NAME-PREFIX`
///   (CardFlowPCSC);
/// - `sim`, `sim:CARD[,option=value…]` or `sim,option=value…` (CardFlowSimulatorReaders).
///
/// Parsing knows no backend: the first source that serves the text's scheme checks it, and its
/// readers are opened through it.
///
/// ```swift
/// let selector = try ReaderSelector(parsing: "usb:serial=ABC123", sources: [USBReaderSource()])
/// if selector.accepts(reader.info) { … }
/// let opened = try await selector.open(options: ReaderSourceOptions(logger: logger))
/// ```
public struct ReaderSelector: Sendable, Hashable, CustomStringConvertible {
    /// The source that serves the selector.
    public let source: any ReaderSource
    /// The whole selector text, as the source checked it.
    public let text: String

    /// Parses a selector: the first of `sources` that serves its scheme checks it.
    ///
    /// - Parameters:
    ///   - text: the selector.
    ///   - sources: the reader sources the program links.
    /// - Throws: ``ReaderSelectorError/invalid(_:reason:sourceForms:)``, naming every form
    ///   `sources` take.
    public init(parsing text: String, sources: [any ReaderSource]) throws(ReaderSelectorError) {
        let forms = sources.flatMap(\.forms)
        guard let source = sources.first(where: { $0.serves(text) }) else {
            throw .invalid(text, reason: nil, sourceForms: forms)
        }
        do {
            try source.check(text)
        } catch {
            throw .invalid(text, reason: "\(error)", sourceForms: forms)
        }
        self.source = source
        self.text = text
    }

    /// The scheme of the source that serves it (`usb`, `sim`, …).
    public var scheme: String { source.scheme }

    /// Whether a reader is one this selector names (cardd keeps the readers its selectors accept).
    public func accepts(_ info: ReaderInfo) -> Bool {
        source.accepts(info, selector: text)
    }

    /// Opens the readers this selector names.
    ///
    /// - Parameter options: how to open them (see ``ReaderSourceOptions``).
    public func open(options: ReaderSourceOptions) async throws -> OpenedReaders {
        try await source.open(text, options: options)
    }

    public var description: String { text }

    // A source is an existential, so equality is by what the selector says: its scheme and text.
    public static func == (left: ReaderSelector, right: ReaderSelector) -> Bool {
        left.scheme == right.scheme && left.text == right.text
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(scheme)
        hasher.combine(text)
    }
}
