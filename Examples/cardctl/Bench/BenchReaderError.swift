import CardFlow

/// A reader a bench could not measure (pcscd did not list it, a comparison side failed): a
/// reader error, exit status 3.
struct BenchReaderError: CategorizedError, CustomStringConvertible {
    let description: String
    var category: ErrorCategory { .reader }
}
