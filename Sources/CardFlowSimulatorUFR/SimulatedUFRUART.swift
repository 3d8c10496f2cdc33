import Synchronization

/// The UART side of a simulated USB uFR reader: what reaches the reader through a USB-serial
/// bridge (``receive(_:)``) and what it sends back (``output``). The bridge (an emulated FTDI
/// chip) reports the line as the host set it; the reader behaves as ufr.md §1.1 says a USB
/// uFR does:
///
/// - It speaks at ``baudRate`` (1 000 000 for USB Classic, Advance and Nano), 8-N-1. Bytes
///   sent at another speed or format reach it as noise: they are dropped.
/// - RTS at the reset level holds it in reset (it hears nothing); leaving reset, its bootloader
///   sends `03 55 55 BB` and any ISO 14443-4 session is gone. Which level resets is not
///   documented (ufr.md §9.1); ``resetWhenRTSAsserted`` follows the COM protocol's "RTS set =
///   reset, clear = run" and can be flipped to simulate a reader wired the other way.
///
/// ```swift
/// let uart = SimulatedUFRUART(reader: SimulatedUFRReader(card: DESFireCard(seed: 1), serialNumber: "UN123456"))
/// uart.receive(.line(SimulatedUFRUART.Line(baudRate: 1_000_000)))
/// uart.receive(.bytes([0x55, 0x10, 0xAA, 0x00, 0x00, 0x00, 0xF6]))
/// for await answer in uart.output { … }
/// ```
public final class SimulatedUFRUART: Sendable {
    /// The serial line as the bridge has it set.
    public struct Line: Sendable, Hashable {
        /// Bits per second.
        public var baudRate: Int
        /// 7 or 8.
        public var dataBits: Int
        /// True when any parity is on.
        public var hasParity: Bool
        /// True for more than one stop bit.
        public var extraStopBits: Bool
        /// Whether RTS is asserted ("set").
        public var rtsAsserted: Bool

        /// - Parameters: the line; defaults are 8-N-1 with RTS clear.
        public init(
            baudRate: Int, dataBits: Int = 8, hasParity: Bool = false, extraStopBits: Bool = false,
            rtsAsserted: Bool = false
        ) {
            self.baudRate = baudRate
            self.dataBits = dataBits
            self.hasParity = hasParity
            self.extraStopBits = extraStopBits
            self.rtsAsserted = rtsAsserted
        }
    }

    /// What the bridge hands over, in the order the host caused it.
    public enum Input: Sendable, Hashable {
        /// Bytes the host wrote to the line.
        case bytes([UInt8])
        /// The line's new settings.
        case line(Line)
    }

    /// The reader behind the UART.
    public let reader: SimulatedUFRReader
    /// The speed the reader speaks.
    public let baudRate: Int
    /// Whether asserted RTS holds the reader in reset (true) or lets it run (false).
    public let resetWhenRTSAsserted: Bool
    /// What the reader sends on the line, in order.
    public let output: AsyncStream<[UInt8]>
    private let inputs: AsyncStream<Input>.Continuation
    private let outputs: AsyncStream<[UInt8]>.Continuation
    private let serving: Task<Void, Never>
    private let resets = ResetCounter()

    /// Bytes the bootloader sends after a reset.
    static let bootloaderBytes: [UInt8] = [0x03, 0x55, 0x55, 0xBB]

    /// - Parameters:
    ///   - reader: the simulated reader.
    ///   - baudRate: its speed (default 1 000 000).
    ///   - initialLine: the line before the bridge reports one (a reset FTDI chip: 9600 8N1).
    ///   - resetWhenRTSAsserted: which RTS level resets the reader (default: asserted).
    public init(
        reader: SimulatedUFRReader, baudRate: Int = 1_000_000, initialLine: Line = Line(baudRate: 9600),
        resetWhenRTSAsserted: Bool = true
    ) {
        self.reader = reader
        self.baudRate = baudRate
        self.resetWhenRTSAsserted = resetWhenRTSAsserted
        let (inputStream, inputs) = AsyncStream.makeStream(of: Input.self, bufferingPolicy: .unbounded)
        let (output, outputs) = AsyncStream.makeStream(of: [UInt8].self, bufferingPolicy: .unbounded)
        self.inputs = inputs
        self.outputs = outputs
        self.output = output
        let resets = self.resets
        serving = Task {
            await Self.serve(
                inputStream, reader: reader, baudRate: baudRate, line: initialLine,
                resetWhenRTSAsserted: resetWhenRTSAsserted, outputs: outputs, resets: resets)
        }
    }

    deinit {
        stop()
    }

    /// How many times the reset line restarted the reader (each one sent the bootloader bytes).
    public var resetCount: Int { resets.count.load(ordering: .acquiring) }

    /// Hands bytes or a line change to the reader (in the order given). Callable from any thread.
    public func receive(_ input: Input) {
        inputs.yield(input)
    }

    /// Stops the reader's side; ``output`` ends.
    public func stop() {
        inputs.finish()
        serving.cancel()
        outputs.finish()
    }

    private static func serve(
        _ inputStream: AsyncStream<Input>, reader: SimulatedUFRReader, baudRate: Int, line initial: Line,
        resetWhenRTSAsserted: Bool, outputs: AsyncStream<[UInt8]>.Continuation, resets: ResetCounter
    ) async {
        var line = initial
        var parser = UFRCommandParser()
        func inReset(_ line: Line) -> Bool { line.rtsAsserted == resetWhenRTSAsserted }
        func understands(_ line: Line) -> Bool {
            line.baudRate == baudRate && line.dataBits == 8 && !line.hasParity && !line.extraStopBits
        }
        for await input in inputStream {
            switch input {
            case .line(let new):
                let leavesReset = inReset(line) && !inReset(new)
                let hearsChanged = understands(line) != understands(new)
                line = new
                if inReset(new) || hearsChanged { parser = UFRCommandParser() }
                if leavesReset {
                    await reader.resetByLine()
                    resets.count.add(1, ordering: .releasing)
                    outputs.yield(bootloaderBytes)
                }
            case .bytes(let bytes):
                guard !inReset(line), understands(line) else { continue }
                for event in parser.feed(bytes) {
                    let answer: [UInt8]
                    switch event {
                    case .reply(let immediate): answer = immediate
                    case .command(let code, let parameter0, let parameter1, let ext):
                        answer = await reader.run(code: code, parameter0: parameter0, parameter1: parameter1, ext: ext)
                    }
                    if !answer.isEmpty { outputs.yield(answer) }
                }
            }
        }
    }
}

/// The reset count, shared by the UART and its serving task.
final class ResetCounter: Sendable {
    let count = Atomic<Int>(0)
}
