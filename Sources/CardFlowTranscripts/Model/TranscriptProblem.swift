import CardFlowCCIDProtocol

/// A line the parser recognised as part of the conversation but did not keep.
public struct TranscriptProblem: Sendable, Hashable, CustomStringConvertible {
    /// Why the line was not kept.
    public enum Reason: Sendable, Hashable {
        /// An arrow line whose bytes are not one whole CCID message (a paste cut it short, or
        /// wrapped it and lost a piece). The conversation is split there.
        case invalidFrame(CCIDFrameError)
        /// Hex where bytes were expected, with characters that are not two-digit hex.
        case invalidHex
        /// A header line (`# key: value`) whose value cannot be read.
        case invalidHeaderValue(key: String)
    }

    /// The 1-based line number.
    public let line: Int
    /// Why the line was not kept.
    public let reason: Reason

    /// A problem on `line`.
    public init(line: Int, reason: Reason) {
        self.line = line
        self.reason = reason
    }

    public var description: String {
        switch reason {
        case .invalidFrame(let error): "line \(line): not a whole CCID message: \(error)"
        case .invalidHex: "line \(line): bytes are not two-digit hex"
        case .invalidHeaderValue(let key): "line \(line): header '\(key)' has a value that cannot be read"
        }
    }
}
