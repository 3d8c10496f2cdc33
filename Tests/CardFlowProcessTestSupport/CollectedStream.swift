import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The bytes a child writes to one pipe, read to the end by a thread of its own (so the child
/// never blocks on a full pipe), then the pipe is closed.
final class CollectedStream: Sendable {
    private struct State {
        var data = Data()
        var consumedLines = 0
        var ended = false
    }

    private let state = Mutex(State())

    init(draining descriptor: Int32) {
        let thread = Thread { [self] in
            var buffer = [UInt8](repeating: 0, count: 65536)
            while true {
                let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
                if count < 0 && errno == EINTR { continue }
                state.withLock { state in
                    if count <= 0 { state.ended = true } else { state.data.append(contentsOf: buffer[0..<count]) }
                }
                if count <= 0 { break }
            }
            close(descriptor)
        }
        thread.start()
    }

    var data: Data { state.withLock { $0.data } }

    var text: String { String(decoding: data, as: UTF8.self) }

    /// The next complete line not handed out yet, if there is one.
    private func takeLine() -> String? {
        state.withLock { state in
            let lines = String(decoding: state.data, as: UTF8.self)
                .split(separator: "\n", omittingEmptySubsequences: false)
            // The last piece is an incomplete line (or "" after a final newline).
            guard lines.count - 1 > state.consumedLines else { return nil }
            state.consumedLines += 1
            return String(lines[state.consumedLines - 1])
        }
    }

    var isEnded: Bool { state.withLock { $0.ended } }

    /// The next complete line, waiting for it until `deadline`; nil at the end or after it.
    func nextLine(deadline: ContinuousClock.Instant) async -> String? {
        var line: String?
        _ = await ChildProcess.poll(until: deadline) {
            line = takeLine()
            return line != nil || isEnded
        }
        return line ?? takeLine()
    }

    /// Waits until the pipe is at its end; false when `deadline` passes first.
    func waitForEnd(deadline: ContinuousClock.Instant) async -> Bool {
        await ChildProcess.poll(until: deadline) { isEnded }
    }
}
