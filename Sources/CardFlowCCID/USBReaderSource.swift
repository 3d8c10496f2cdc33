import CardFlow
import CardFlowCCIDProtocol

/// USB CCID readers through the package's own driver as a ``/CardFlow/ReaderSource``: selectors
/// `usb` (every reader; card commands use the first), `usb:VVVV:PPPP` (hex vendor and product),
/// `usb:BUS:DEV` (decimal) and `usb:serial=XYZ` (see `USBReaderSelector`).
///
/// Opened to watch (``/CardFlow/ReaderSourceOptions/watch``), readers the selector names are
/// opened as they are plugged in and closed when they leave (``USBReaderRegistry``), and other
/// readers are left alone; otherwise the readers there now are opened (one named by a specific
/// selector, every one for `usb`). The watching selectors of one source (and its copies) share
/// one libusb context and registry, so a reader that two of them name (`usb` and
/// `usb:072F:2200`) is opened once and arrives through both.
///
/// ```swift
/// let sources: [any ReaderSource] = [USBReaderSource()]
/// let opened = try await ReaderSelector(parsing: "usb:072F:2200", sources: sources)
///     .open(options: ReaderSourceOptions(logger: logger))
/// ```
public struct USBReaderSource: ReaderSource {
    private let pollingInterval: Duration
    private let shared = SharedUSBWatch()

    /// - Parameter pollingInterval: how often a watching source enumerates where libusb has no
    ///   hotplug.
    public init(pollingInterval: Duration = .seconds(1)) {
        self.pollingInterval = pollingInterval
    }

    public var scheme: String { "usb" }

    public var forms: [String] { ["usb", "usb:VVVV:PPPP (hex)", "usb:BUS:DEV", "usb:serial=XYZ"] }

    public func check(_ selector: String) throws {
        _ = try USBReaderSelector(parsing: selector)
    }

    public func accepts(_ info: ReaderInfo, selector: String) -> Bool {
        (try? USBReaderSelector(parsing: selector))?.matches(info) ?? false
    }

    public func open(_ selector: String, options: ReaderSourceOptions) async throws -> OpenedReaders {
        let usbSelector = try USBReaderSelector(parsing: selector)
        let configuration = options.ccidDriverConfiguration
        if options.watch {
            let watch: (view: USBReaderView, token: Int)
            do {
                watch = try await shared.watch(
                    usbSelector, configuration: configuration, pollingInterval: pollingInterval, logger: options.logger)
            } catch {
                throw ReaderBackendUnavailable(scheme: scheme, underlying: error)
            }
            let shared = self.shared
            return OpenedReaders(readers: [], arrivals: watch.view, close: { await shared.end(watch.token) })
        }
        let context: LibUSBContext
        let found: [USBReaderDescription]
        do {
            context = try LibUSBContext(logger: options.logger)
            do { found = try context.readers() } catch {
                context.close()
                throw error
            }
        } catch {
            // No USB at all (no usbfs in a container, libusb failing).
            throw ReaderBackendUnavailable(scheme: scheme, underlying: error)
        }
        do {
            var matching = found.filter { usbSelector.matches($0) }
            // `usb` means "the first reader" for card commands, but a listing shows them all.
            if case .first = usbSelector {
            } else if let chosen = usbSelector.select(from: matching) {
                matching = [chosen]
            }
            var readers: [Reader] = []
            var transports: [LibUSBTransport] = []
            for description in matching {
                let (transport, driver) = try context.openDriver(
                    for: description, configuration: configuration, logger: options.logger)
                transports.append(transport)
                let info = ReaderInfo(usb: description, descriptor: driver.descriptor)
                // A multi-slot reader is one CardFlow reader per slot.
                readers += Reader.slotReaders(info: info, driver: driver, logger: options.readerLogger)
            }
            let opened = transports
            return OpenedReaders(
                readers: readers,
                close: {
                    for transport in opened { transport.close() }
                    context.close()
                })
        } catch {
            context.close()
            throw error
        }
    }
}
