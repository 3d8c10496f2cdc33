// In-place changes to a dictionary's value without its subscript's `_modify` coroutine: where
// the compiler does not inline that coroutine (the driver and InboundPipe on the APDU path), its
// frame is heap-allocated, one to three mallocs per call (issue 40). Moving the value out and
// back keeps it uniquely referenced, so the change itself does not copy it either.
extension Dictionary {
    /// Runs `body` on the value for `key`, inserting `defaultValue()` first when there is none.
    @inline(__always)
    mutating func withMovedValue<Result>(
        forKey key: Key, default defaultValue: @autoclosure () -> Value, _ body: (inout Value) throws -> Result
    ) rethrows -> Result {
        var value = removeValue(forKey: key) ?? defaultValue()
        defer { self[key] = value }
        return try body(&value)
    }

    /// Runs `body` on the value for `key` when there is one; nil otherwise.
    @inline(__always)
    mutating func withMovedValue<Result>(forKey key: Key, _ body: (inout Value) throws -> Result) rethrows
        -> Result?
    {
        guard var value = removeValue(forKey: key) else { return nil }
        defer { self[key] = value }
        return try body(&value)
    }
}
