/// A source could not reach its backend at all (no USB subsystem, pcscd not running), as opposed
/// to a reader failing: a program that opened the source only as its default can say how to
/// choose a reader instead of reporting the backend's failure.
///
/// ```swift
/// do { opened = try await selector.open(options: options) }
/// catch let error as ReaderBackendUnavailable { print("no \(error.scheme) readers here:", error) }
/// ```
public struct ReaderBackendUnavailable: Error, CustomStringConvertible {
    /// The scheme of the source whose backend is out of reach.
    public let scheme: String
    /// What the backend reported.
    public let underlying: any Error

    /// - Parameters:
    ///   - scheme: the source's scheme.
    ///   - underlying: the backend's error.
    public init(scheme: String, underlying: any Error) {
        self.scheme = scheme
        self.underlying = underlying
    }

    /// The backend's own message.
    public var description: String { "\(underlying)" }
}
