import CardFlowCCIDEmulator
import CardFlowSimulatorUFR
import Logging
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A simulated USB uFR Nano on the ``USBTestbed``: an emulated FTDI FT232R (0403:6001, the
/// reader's serial as the USB serial string) whose serial line leads to a
/// `SimulatedUFRUART` (CardFlowSimulatorUFR). libftdi1, pyftdi or any libusb program drives
/// the chip as a real one; the reader answers at 1 000 000 bps 8-N-1 with RTS clear.
///
/// ```swift
/// let testbed = try USBTestbed.shared()
/// let device = try testbed.attachUFR(SimulatedUFRReader(card: DESFireCard(seed: 1), serialNumber: "UN123456"))
/// // cardctl --reader ufr:usb:UN123456 …
/// device.close()
/// ```
public final class EmulatedFTDIUFRReader: Sendable {
    /// The reader behind the chip.
    public var reader: SimulatedUFRReader { uart.reader }
    /// The reader's serial line.
    public let uart: SimulatedUFRUART
    /// The USB serial string (the reader's serial).
    public let serial: String
    /// The device node clients open, e.g. `/dev/bus/usb/001/002`.
    public let deviceNode: String

    private let handle: ReaderPointer
    private let bridge: FTDIBridge
    private let pump: Mutex<Task<Void, Never>?>

    init(uart: SimulatedUFRUART, serial: String, handle: ReaderPointer, bridge: FTDIBridge) {
        self.uart = uart
        self.serial = serial
        self.handle = handle
        self.bridge = bridge
        deviceNode = String(cString: ccid_emu_reader_device_node(handle.raw))
        let output = uart.output
        pump = Mutex(
            Task {
                for await bytes in output {
                    let pushed = bytes.withUnsafeBufferPointer {
                        ccid_emu_ftdi_push_serial(handle.raw, $0.baseAddress, $0.count)
                    }
                    if pushed != 0 { return }
                }
            })
    }

    deinit {
        close()
    }

    /// The line as the host set it through the chip.
    public var line: SimulatedUFRUART.Line {
        var line = ccid_emu_ftdi_line()
        ccid_emu_ftdi_get_line(handle.raw, &line)
        return FTDIBridge.line(line)
    }

    /// The chip's latency timer as the host set it (milliseconds).
    public var latencyMilliseconds: Int {
        var line = ccid_emu_ftdi_line()
        ccid_emu_ftdi_get_line(handle.raw, &line)
        return Int(line.latency_ms)
    }

    /// True once the device was unplugged.
    public var isUnplugged: Bool { ccid_emu_reader_is_unplugged(handle.raw) != 0 }

    /// Pulls the cable: the host's transfers fail with `LIBUSB_ERROR_NO_DEVICE`. Idempotent.
    public func unplug() {
        handle.unplug()
    }

    /// Unplugs the device (if still present) and stops the reader's side. Idempotent; also done
    /// when the object is released.
    public func close() {
        pump.withLock { $0?.cancel() }
        ccid_emu_reader_close(handle.raw) // after this, no C callback uses the bridge
        uart.stop()
    }

    /// Counters of the emulated device.
    public var statistics: EmulatedUSBStatistics {
        var stats = ccid_emu_reader_stats()
        ccid_emu_reader_get_stats(handle.raw, &stats)
        return EmulatedUSBStatistics(stats)
    }
}

/// What the C callbacks reach: the UART, given bytes and line changes in the order they came.
final class FTDIBridge: Sendable {
    let uart: SimulatedUFRUART

    init(uart: SimulatedUFRUART) {
        self.uart = uart
    }

    static func line(_ line: ccid_emu_ftdi_line) -> SimulatedUFRUART.Line {
        SimulatedUFRUART.Line(
            baudRate: Int(line.baud_rate), dataBits: Int(line.data_bits), hasParity: line.parity != 0,
            extraStopBits: line.stop_bits != 0, rtsAsserted: line.rts != 0)
    }
}

extension USBTestbed {
    /// The FTDI identity of a USB uFR reader (ufr.md §1.1).
    static let ufrVendorID: UInt16 = 0x0403
    static let ufrProductID: UInt16 = 0x6001

    /// Plugs in a simulated USB uFR Nano: an emulated FTDI chip (0403:6001, `serial` as its USB
    /// serial string, the reader's own by default) in front of `reader`.
    ///
    /// - Parameters:
    ///   - reader: the simulated reader.
    ///   - serial: the USB serial string; the reader's `SimulatedUFRReader.serialNumber` when nil.
    ///   - resetWhenRTSAsserted: which RTS level resets the reader (see `SimulatedUFRUART` (CardFlowSimulatorUFR)).
    /// - Throws: ``USBEmulationError/attach(_:)`` when the device cannot be added.
    public func attachUFR(
        _ reader: SimulatedUFRReader, serial: String? = nil, resetWhenRTSAsserted: Bool = true
    ) throws(USBEmulationError) -> EmulatedFTDIUFRReader {
        let serial = serial ?? reader.serialNumber
        let uart = SimulatedUFRUART(reader: reader, resetWhenRTSAsserted: resetWhenRTSAsserted)
        let bridge = FTDIBridge(uart: uart)
        // Called on umockdev's worker thread: hand over and return at once.
        var callbacks = ccid_emu_ftdi_callbacks(
            on_serial_out: { context, data, length in
                guard let context, length > 0, let data else { return }
                let bridge = Unmanaged<FTDIBridge>.fromOpaque(context).takeUnretainedValue()
                bridge.uart.receive(.bytes(Array(UnsafeBufferPointer(start: data, count: length))))
            },
            on_line: { context, line in
                guard let context, let line else { return }
                let bridge = Unmanaged<FTDIBridge>.fromOpaque(context).takeUnretainedValue()
                bridge.uart.receive(.line(FTDIBridge.line(line.pointee)))
            })
        // Manufacturer and product strings of real uFR readers are not documented: plain names.
        let identity: [String] = ["D-Logic", "uFR Nano", serial]
        let strings = identity.map { strdup($0) }
        defer { strings.forEach { free($0) } }
        var info = ccid_emu_ftdi_info(
            vendor_id: Self.ufrVendorID, product_id: Self.ufrProductID, manufacturer: strings[0],
            product: strings[1], serial_number: strings[2])
        var message: UnsafeMutablePointer<CChar>?
        let created = ccid_emu_bed_add_ftdi(
            bed.raw, &info, &callbacks, Unmanaged.passUnretained(bridge).toOpaque(), &message)
        guard let created else {
            uart.stop()
            throw .attach(USBEmulationError.take(message) ?? "the FTDI device could not be added")
        }
        return EmulatedFTDIUFRReader(uart: uart, serial: serial, handle: ReaderPointer(raw: created), bridge: bridge)
    }
}
