import CardFlow

/// A bench run that ended without a single sample (every round trip failed, no size or
/// operation could be timed): the document still says so (the run's `failure`), and cardctl
/// exits 1, since the card or the reader gave nothing to measure.
struct BenchMeasuredNothing: CategorizedError, CustomStringConvertible {
    let reader: String
    let reason: String
    var category: ErrorCategory { .card }
    var description: String { "\(reader): measured nothing: \(reason)" }
}
