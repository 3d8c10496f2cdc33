import CardFlow

// The categories of the NDEF errors.

extension NDEFTagError: CategorizedError {
    /// The tag is not, or not a well-formed, NDEF tag.
    public var category: ErrorCategory { .card }
}

extension NDEFDecodingError: CategorizedError {
    /// Bytes given to decode that are not an NDEF message.
    public var category: ErrorCategory { .usage }
}

extension NDEFEncodingError: CategorizedError {
    /// A record or message that cannot be encoded.
    public var category: ErrorCategory { .usage }
}
