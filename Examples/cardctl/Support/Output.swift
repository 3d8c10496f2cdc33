import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Line output, flushed per line so pipes see answers at once.
enum Output {
    static let standardOutput: @Sendable (String) -> Void = { line in write(line, to: STDOUT_FILENO) }
    static let standardError: @Sendable (String) -> Void = { line in write(line, to: STDERR_FILENO) }

    /// Prints a command's `--json` answer: one line of compact JSON, keys in the order the
    /// output type encodes them (see ``KeyOrderedJSONEncoder``).
    static func json(_ value: some Encodable) throws {
        standardOutput(try KeyOrderedJSONEncoder().encode(value))
    }

    /// Prints an answer whose keys have always been sorted (`list`, `identify`, `doctor`, …) as
    /// `JSONEncoder` writes it: spread over lines unless `compact`, and `/` written `\/` where
    /// that answer has always had it (`escapingSlashes`).
    static func sortedJSON(_ value: some Encodable, compact: Bool = false, escapingSlashes: Bool = false) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        if !compact { encoder.outputFormatting.insert(.prettyPrinted) }
        if !escapingSlashes { encoder.outputFormatting.insert(.withoutEscapingSlashes) }
        standardOutput(String(decoding: try encoder.encode(value), as: UTF8.self))
    }

    /// Writes the whole line. A reader that went away (`cardctl watch | head`) ends cardctl
    /// quietly, as it would any Unix filter, instead of trapping in FileHandle.
    private static func write(_ line: String, to descriptor: Int32) {
        let bytes = Array((line + "\n").utf8)
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { buffer in
                Glibc.write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
            }
            if written >= 0 {
                offset += written
            } else if errno == EINTR || errno == EAGAIN {
                continue
            } else if errno == EPIPE {
                exit(descriptor == STDOUT_FILENO ? 0 : 1)
            } else {
                return
            }
        }
    }
}
