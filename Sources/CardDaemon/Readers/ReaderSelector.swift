import CCID
import CardFlow
import CardSimulator

/// What a reader selector names, one syntax for `cardctl --reader` and cardd's `"readers"`:
///
/// - `usb` (every USB CCID reader; card commands use the first), `usb:VVVV:PPPP` (vendor and
///   product id in hex), `usb:BUS:DEV` (decimal), `usb:serial=XYZ`;
/// - `sim`, `sim:CARD[,option=value…]` or `sim,option=value…`: the built-in simulator (see
///   ``SimulatorSpecification``).
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
        case .usb(let selector):
            guard info.backend == "usb" else { return false }
            switch selector {
            case .first: return true
            case .serialNumber(let serial): return info.serialNumber == serial
            case .vendorProduct(let vendorID, let productID): return info.vendorID == vendorID && info.productID == productID
            case .busAddress(let bus, let address): return info.id.hasPrefix("usb:\(bus):\(address):")
            }
        }
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
                + "usb:BUS:DEV, usb:serial=XYZ, or sim[:CARD][,option=value...]"
        }
    }
}
