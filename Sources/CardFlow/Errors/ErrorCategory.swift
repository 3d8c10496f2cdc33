/// What kind of failure an error is, as a caller decides what to do next: fix the input, look at
/// the card, look at the reader (or the link to it), or nothing (the caller cancelled). Every
/// layer's errors say theirs (``CategorizedError``), each in its own module, so a program maps
/// errors to exit codes or HTTP statuses without knowing any card family or backend.
///
/// ```swift
/// switch error.errorCategory {
/// case .usage: exit(2)
/// case .card: exit(1)
/// case .reader: exit(3)
/// case .cancelled: exit(130)
/// }
/// ```
public enum ErrorCategory: String, Sendable, Hashable, Codable, CaseIterable, CustomStringConvertible {
    /// Bad input: an argument, a file, a selector, a key that does not fit.
    case usage
    /// The card refused, failed or left (a status word, a lost card, a card that is not the kind asked for).
    case card
    /// The reader, its driver or the link to it failed (time-outs, USB, pcscd, the network).
    case reader
    /// The caller cancelled the work.
    case cancelled

    public var description: String { rawValue }
}

/// An error that says its own ``ErrorCategory``. Each module makes its errors conform; the
/// card-loss classification (``CardLossClassifying``) stays beside it.
public protocol CategorizedError: Error {
    /// What kind of failure this is.
    var category: ErrorCategory { get }
}

extension Error {
    /// The error's category: ``ErrorCategory/cancelled`` for `CancellationError`, the
    /// ``CategorizedError/category`` of an error that says one, and ``ErrorCategory/reader``
    /// for any other (an error nobody classified came from below the card: a backend or the system).
    public var errorCategory: ErrorCategory {
        if self is CancellationError { return .cancelled }
        if let categorized = self as? any CategorizedError { return categorized.category }
        return .reader
    }
}
