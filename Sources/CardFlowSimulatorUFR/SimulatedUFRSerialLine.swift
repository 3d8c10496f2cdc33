import NIOCore
import NIOPosix

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A simulated uFR reader on a serial line: a pseudo-terminal whose other end (``path``, a
/// `/dev/pts/N`) the backend opens as it opens `/dev/ttyUSB0` (ufr.md §7.1 item 8: "pty pair,
/// any baud").
///
/// ```swift
/// let line = try await SimulatedUFRSerialLine.start(reader: SimulatedUFRReader(card: DESFireCard(seed: 1)))
/// // cardctl --reader ufr:serial:\(line.path) …
/// await line.stop()
/// ```
public actor SimulatedUFRSerialLine {
    /// The reader on the line.
    public nonisolated let reader: SimulatedUFRReader
    /// The terminal the host opens.
    public nonisolated let path: String
    private let channel: any Channel
    /// The terminal side held open by the simulator, so the line stays up between host opens.
    private let terminal: CInt
    private var serving: Task<Void, Never>?

    /// Linux's TIOCSPTLCK and TIOCGPTN (`_IOW('T', 0x31, int)`, `_IOR('T', 0x30, unsigned int)`).
    private static let setLock = UInt(0x4004_5431)
    private static let getNumber = UInt(0x8004_5430)

    private init(reader: SimulatedUFRReader, path: String, channel: any Channel, terminal: CInt) {
        self.reader = reader
        self.path = path
        self.channel = channel
        self.terminal = terminal
    }

    /// Opens a pseudo-terminal and serves `reader` on it.
    ///
    /// - Throws: ``SimulatedUFRSerialLineError`` when no pseudo-terminal can be had.
    public static func start(reader: SimulatedUFRReader) async throws -> SimulatedUFRSerialLine {
        // /dev/ptmx, unlocked and numbered by ioctl (Glibc's module does not import posix_openpt,
        // unlockpt or ptsname; grantpt is a no-op on devpts).
        let controller = open("/dev/ptmx", O_RDWR | O_NOCTTY)
        var unlock: CInt = 0
        var number: CUnsignedInt = 0
        guard controller >= 0, ioctl(controller, Self.setLock, &unlock) == 0,
            ioctl(controller, Self.getNumber, &number) == 0
        else {
            let reason = String(cString: strerror(errno))
            if controller >= 0 { close(controller) }
            throw SimulatedUFRSerialLineError.pseudoTerminal(reason)
        }
        let path = "/dev/pts/\(number)"
        let terminal = open(path, O_RDWR | O_NOCTTY)
        guard terminal >= 0 else {
            close(controller)
            throw SimulatedUFRSerialLineError.pseudoTerminal(String(cString: strerror(errno)))
        }
        var settings = termios()
        tcgetattr(terminal, &settings)
        cfmakeraw(&settings)
        tcsetattr(terminal, TCSANOW, &settings)
        let (bytes, sink) = AsyncStream.makeStream(of: [UInt8].self)
        let channel: any Channel
        do {
            channel = try await NIOPipeBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .channelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHandler(UFRSimulatorStreamHandler(sink: sink))
                    }
                }
                .takingOwnershipOfDescriptor(inputOutput: controller).get()
        } catch {
            close(terminal)
            close(controller)
            throw SimulatedUFRSerialLineError.pseudoTerminal("\(error)")
        }
        let line = SimulatedUFRSerialLine(reader: reader, path: path, channel: channel, terminal: terminal)
        await line.serve(bytes)
        return line
    }

    private func serve(_ bytes: AsyncStream<[UInt8]>) {
        let channel = self.channel
        let reader = self.reader
        serving = Task { await UFRStreamServing.serve(bytes, on: channel, reader: reader) }
    }

    /// Stops serving and closes the pseudo-terminal.
    public func stop() async {
        serving?.cancel()
        try? await channel.close().get()
        close(terminal)
    }
}

/// The simulated serial line could not be set up.
public enum SimulatedUFRSerialLineError: Error, Sendable, Hashable, CustomStringConvertible {
    /// No pseudo-terminal: what the system said.
    case pseudoTerminal(String)

    public var description: String {
        switch self {
        case .pseudoTerminal(let reason): "cannot open a pseudo-terminal for the simulated uFR reader: \(reason)"
        }
    }
}
