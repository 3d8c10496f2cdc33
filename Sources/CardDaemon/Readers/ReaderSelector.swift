import CCID
import CardFlow
import CardFlowCCID
import CardSimulator

/// What a reader selector names, one syntax for `cardctl --reader` and cardd's `"readers"`:
///
/// - `usb` (every USB CCID reader; card commands use the first), `usb:VVVV:PPPP` (vendor and
///   product id in hex), `usb:BUS:DEV` (decimal), `usb:serial=XYZ`;
/// - `sim`, `sim:CARD[,option=value…]` or `sim,option=value…`: the built-in simulator (see
///   ``/CardSimulator/SimulatorSpecification``);
/// - `vpcd`, `vpcd:PORT`, `vpcd:HOST:PORT`: a network reader, listening (on 127.0.0.1:35963 by
///   default) for a vpcd card side such as vsmartcard's `vicc` or the Android remote reader app;
/// - `pcsc` (every reader pcscd serves; card commands use the first), `pcsc:NAME-PREFIX`.
///
/// ```swift
/// let selector = try ReaderSelector(parsing: "usb:serial=ABC123")
/// if selector.accepts(reader.info) { … }
/// ```
public enum ReaderSelector: Sendable, Hashable {
    /// USB CCID readers through the direct driver.
    case usb(USBReaderSelector)
    /// Readers of the built-in simulator.
    case simulator(SimulatorSpecification)
    /// A vpcd listener: CardFlow is the reader, the card connects over TCP.
    case vpcd(host: String, port: Int)
    /// Readers pcscd serves whose names start with the prefix (empty: all).
    case pcsc(namePrefix: String)

    /// Parses a selector.
    public init(parsing text: String) throws(ReaderSelectorError) {
        if text == "sim" || text.hasPrefix("sim:") || text.hasPrefix("sim,") {
            do {
                self = .simulator(try SimulatorSpecification(parsing: text))
            } catch {
                throw .invalid(text, reason: "\(error)")
            }
            return
        }
        if text == "pcsc" || text.hasPrefix("pcsc:") {
            let prefix = String(text.dropFirst(5))
            guard text == "pcsc" || !prefix.isEmpty else { throw .invalid(text, reason: "the reader name prefix is empty") }
            self = .pcsc(namePrefix: prefix)
            return
        }
        if text == "vpcd" || text.hasPrefix("vpcd:") {
            self = try Self.parseVPCD(text)
            return
        }
        guard text == "usb" || text.hasPrefix("usb:") else { throw .invalid(text, reason: nil) }
        do {
            self = .usb(try USBReaderSelector(parsing: text))
        } catch {
            throw .invalid(text, reason: "\(error)")
        }
    }

    /// Whether a reader that arrived is one this selector names (USB hotplug: cardd keeps the
    /// readers its selectors accept). A simulator selector names the readers it makes itself.
    public func accepts(_ info: ReaderInfo) -> Bool {
        switch self {
        case .simulator:
            return info.backend == "sim"
        case .vpcd(let host, let port):
            return info.backend == "vpcd" && info.id == "vpcd:\(host):\(port)"
        case .pcsc(let prefix):
            return info.backend == "pcsc" && info.name.hasPrefix(prefix)
        case .usb(let selector):
            return selector.matches(info)
        }
    }
}

extension ReaderSelector {
    /// vpcd's first slot listens on 35963 (0x8C7B).
    public static let defaultVPCDPort = 35963

    static func parseVPCD(_ text: String) throws(ReaderSelectorError) -> ReaderSelector {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false).dropFirst().map(String.init)
        let host = parts.count == 2 ? parts[0] : "127.0.0.1"
        guard parts.count <= 2, !host.isEmpty else { throw .invalid(text, reason: "expected vpcd, vpcd:PORT or vpcd:HOST:PORT") }
        guard let portText = parts.last else { return .vpcd(host: host, port: defaultVPCDPort) }
        guard let port = Int(portText), (0...65_535).contains(port), portText.allSatisfy(\.isASCII) else {
            throw .invalid(text, reason: "the port must be a number from 0 to 65535")
        }
        return .vpcd(host: host, port: port)
    }
}

/// A reader selector that cannot be parsed.
public enum ReaderSelectorError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The text is not a selector; `reason` says what is wrong with it when it looked like one.
    case invalid(String, reason: String?)

    public var description: String {
        switch self {
        case .invalid(let text, let reason):
            "invalid reader selector '\(text.prefix(200))'\(reason.map { " (\($0))" } ?? ""); use usb, usb:VVVV:PPPP (hex), "
                + "usb:BUS:DEV, usb:serial=XYZ, vpcd[:HOST][:PORT], pcsc[:NAME-PREFIX], or sim[:CARD][,option=value...]"
        }
    }
}
