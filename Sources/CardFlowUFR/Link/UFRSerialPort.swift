#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A serial device to a uFR reader through the kernel's tty driver (`ftdi_sio` for USB readers,
/// `/dev/ttyS*` or a USB–RS232 adapter for RS232 models): raw mode, 8-N-1, no flow control, at
/// the reader's speed (1 000 000 bps for USB uFR Classic, Advance and Nano; 115 200 for RS232
/// models and a Nano Online's transparent port; 250 000 for BaseHD).
///
/// ```swift
/// let link = try await UFRSerialPort.open(path: "/dev/ttyUSB0", baudRate: 1_000_000)
/// ```
public enum UFRSerialPort {
    /// The speed of USB uFR readers.
    public static let defaultBaudRate = 1_000_000

    /// The speeds termios can set, as their constants.
    static let speeds: [Int: speed_t] = [
        9600: speed_t(B9600), 19200: speed_t(B19200), 38400: speed_t(B38400), 57600: speed_t(B57600),
        115_200: speed_t(B115200), 230_400: speed_t(B230400), 460_800: speed_t(B460800),
        500_000: speed_t(B500000), 921_600: speed_t(B921600), 1_000_000: speed_t(B1000000),
    ]

    /// Opens and configures the device, and returns it as a link.
    ///
    /// - Parameters:
    ///   - path: the device, such as `/dev/ttyUSB0`.
    ///   - baudRate: one of the speeds termios sets (9600 … 1 000 000; 250 000 has no termios
    ///     constant).
    /// - Throws: ``UFRError/connectionFailed(endpoint:reason:)``.
    public static func open(path: String, baudRate: Int = defaultBaudRate) async throws -> UFRNIOLink {
        let endpoint = "serial:\(path)"
        guard let speed = speeds[baudRate] else {
            throw UFRError.connectionFailed(endpoint: endpoint, reason: "termios has no \(baudRate) bps speed")
        }
        let descriptor = Glibc.open(path, O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw UFRError.connectionFailed(endpoint: endpoint, reason: String(cString: strerror(errno)))
        }
        var settings = termios()
        guard tcgetattr(descriptor, &settings) == 0 else {
            let reason = String(cString: strerror(errno))
            Glibc.close(descriptor)
            throw UFRError.connectionFailed(endpoint: endpoint, reason: "not a terminal device: \(reason)")
        }
        cfmakeraw(&settings)
        settings.c_cflag &= ~(tcflag_t(CSTOPB) | tcflag_t(PARENB) | tcflag_t(CRTSCTS) | tcflag_t(CSIZE))
        settings.c_cflag |= tcflag_t(CS8) | tcflag_t(CLOCAL) | tcflag_t(CREAD)
        cfsetispeed(&settings, speed)
        cfsetospeed(&settings, speed)
        guard tcsetattr(descriptor, TCSANOW, &settings) == 0 else {
            let reason = String(cString: strerror(errno))
            Glibc.close(descriptor)
            throw UFRError.connectionFailed(endpoint: endpoint, reason: "cannot configure the line: \(reason)")
        }
        tcflush(descriptor, TCIOFLUSH)
        return try await UFRNIOLink.pipe(descriptor: descriptor, endpoint: endpoint)
    }
}
