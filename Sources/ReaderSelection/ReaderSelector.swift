import CCID
import CardFlow
import CardFlowCCID

/// What a reader selector names, one syntax for `cardctl --reader` and cardd's `"readers"`:
///
/// - `usb` (every USB CCID reader; card commands use the first), `usb:VVVV:PPPP` (vendor and
///   product id in hex), `usb:BUS:DEV` (decimal), `usb:serial=XYZ`;
/// - `vpcd`, `vpcd:PORT`, `vpcd:HOST:PORT`: a network reader, listening (on 127.0.0.1:35963 by
///   default) for a vpcd card side such as vsmartcard's `vicc` or the Android remote reader app;
/// - `pcsc` (every reader pcscd serves; card commands use the first), `pcsc:NAME-PREFIX`;
/// - `SCHEME`, `SCHEME:…` or `SCHEME,…` of a ``ReaderSource`` the caller passes: with the
///   simulator's source (CardSimulatorReaders), `sim`, `sim:CARD[,option=value…]` or
///   `sim,option=value…`.
///
/// Parsing names no backend beyond the built-in ones: a source's selectors are checked by the
/// source, and its readers are opened through it.
///
/// ```swift
/// let selector = try ReaderSelector(parsing: "usb:serial=ABC123")
/// if selector.accepts(reader.info) { … }
/// ```
public enum ReaderSelector: Sendable, Hashable {
    /// USB CCID readers through the direct driver.
    case usb(USBReaderSelector)
    /// A vpcd listener: CardFlow is the reader, the card connects over TCP.
    case vpcd(host: String, port: Int)
    /// Readers pcscd serves whose names start with the prefix (empty: all).
    case pcsc(namePrefix: String)
    /// Readers a ``ReaderSource`` opens, and the whole selector text it checked.
    case source(any ReaderSource, selector: String)

    /// Parses a selector; `sources` serve the schemes beyond usb, vpcd and pcsc.
    ///
    /// - Parameters:
    ///   - text: the selector.
    ///   - sources: the reader sources whose schemes are accepted (and checked by them).
    /// - Throws: ``ReaderSelectorError/invalid(_:reason:sourceForms:)``, naming every form
    ///   the built-in backends and `sources` take.
    public init(parsing text: String, sources: [any ReaderSource] = []) throws(ReaderSelectorError) {
        let forms = sources.map(\.syntax)
        if let source = sources.first(where: { $0.serves(text) }) {
            do {
                try source.check(text)
            } catch {
                throw .invalid(text, reason: "\(error)", sourceForms: forms)
            }
            self = .source(source, selector: text)
            return
        }
        if text == "pcsc" || text.hasPrefix("pcsc:") {
            let prefix = String(text.dropFirst(5))
            guard text == "pcsc" || !prefix.isEmpty else {
                throw .invalid(text, reason: "the reader name prefix is empty", sourceForms: forms)
            }
            self = .pcsc(namePrefix: prefix)
            return
        }
        if text == "vpcd" || text.hasPrefix("vpcd:") {
            self = try Self.parseVPCD(text, sourceForms: forms)
            return
        }
        guard text == "usb" || text.hasPrefix("usb:") else { throw .invalid(text, reason: nil, sourceForms: forms) }
        do {
            self = .usb(try USBReaderSelector(parsing: text))
        } catch {
            throw .invalid(text, reason: "\(error)", sourceForms: forms)
        }
    }

    /// Whether a reader that arrived is one this selector names (USB hotplug: cardd keeps the
    /// readers its selectors accept). A source's selector names the readers of its backend.
    public func accepts(_ info: ReaderInfo) -> Bool {
        switch self {
        case .source(let source, _):
            return info.backend == source.scheme
        case .vpcd(let host, let port):
            return info.backend == "vpcd" && info.id == "vpcd:\(host):\(port)"
        case .pcsc(let prefix):
            return info.backend == "pcsc" && info.name.hasPrefix(prefix)
        case .usb(let selector):
            return selector.matches(info)
        }
    }

    // A source is an existential, so equality is by what the selector says: its scheme and text.
    public static func == (left: ReaderSelector, right: ReaderSelector) -> Bool {
        switch (left, right) {
        case (.usb(let a), .usb(let b)): a == b
        case (.vpcd(let hostA, let portA), .vpcd(let hostB, let portB)): hostA == hostB && portA == portB
        case (.pcsc(let a), .pcsc(let b)): a == b
        case (.source(let a, let textA), .source(let b, let textB)): a.scheme == b.scheme && textA == textB
        default: false
        }
    }

    public func hash(into hasher: inout Hasher) {
        switch self {
        case .usb(let selector): hasher.combine(0); hasher.combine(selector)
        case .vpcd(let host, let port): hasher.combine(1); hasher.combine(host); hasher.combine(port)
        case .pcsc(let prefix): hasher.combine(2); hasher.combine(prefix)
        case .source(let source, let text): hasher.combine(3); hasher.combine(source.scheme); hasher.combine(text)
        }
    }
}

extension ReaderSelector {
    /// vpcd's first slot listens on 35963 (0x8C7B).
    public static let defaultVPCDPort = 35963

    static func parseVPCD(_ text: String, sourceForms: [String]) throws(ReaderSelectorError) -> ReaderSelector {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false).dropFirst().map(String.init)
        let host = parts.count == 2 ? parts[0] : "127.0.0.1"
        guard parts.count <= 2, !host.isEmpty else {
            throw .invalid(text, reason: "expected vpcd, vpcd:PORT or vpcd:HOST:PORT", sourceForms: sourceForms)
        }
        guard let portText = parts.last else { return .vpcd(host: host, port: defaultVPCDPort) }
        guard let port = Int(portText), (0...65_535).contains(port), portText.allSatisfy(\.isASCII) else {
            throw .invalid(text, reason: "the port must be a number from 0 to 65535", sourceForms: sourceForms)
        }
        return .vpcd(host: host, port: port)
    }
}
