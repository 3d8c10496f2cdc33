import CardFlowBench
import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A one-line progress bar on stderr, drawn only when stderr is a terminal (so logs and pipes
/// stay clean), at most ten times a second.
final class BenchProgressBar: Sendable {
    private let enabled: Bool
    private let lastDraw = Atomic<Int64>(0)
    private let drawn = Atomic<Bool>(false)

    init(enabled: Bool) {
        self.enabled = enabled && isatty(STDERR_FILENO) == 1
    }

    /// Draws `progress` unless the last draw was under 100 ms ago.
    func show(_ progress: BenchProgress) {
        guard enabled else { return }
        let now = Int64(DispatchTime.now().uptimeNanoseconds)
        let last = lastDraw.load(ordering: .relaxed)
        guard now - last >= 100_000_000 || progress.fraction >= 1 else { return }
        guard lastDraw.compareExchange(expected: last, desired: now, ordering: .relaxed).exchanged else { return }
        let width = 30
        let filled = Int(progress.fraction * Double(width))
        let bar = String(repeating: "#", count: filled) + String(repeating: ".", count: width - filled)
        let line = "\r[\(bar)] \(Int(progress.fraction * 100))% \(progress.phase) (\(progress.samples) samples)"
        let cut = String(line.prefix(Self.terminalWidth() - 1))
        FileHandle.standardError.write(Data((cut + "\u{1B}[K").utf8))
        drawn.store(true, ordering: .relaxed)
    }

    /// Removes the bar before results are printed.
    func clear() {
        guard enabled, drawn.exchange(false, ordering: .relaxed) else { return }
        FileHandle.standardError.write(Data("\r\u{1B}[K".utf8))
    }

    /// The terminal's width (80 when it cannot tell).
    static func terminalWidth() -> Int {
        var size = winsize()
        if ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col >= 40 { return Int(size.ws_col) }
        if ioctl(STDERR_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col >= 40 { return Int(size.ws_col) }
        return 80
    }
}
