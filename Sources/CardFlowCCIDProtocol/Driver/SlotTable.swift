/// Values kept per slot of a reader (bSlot, 0–255), stored in an array indexed by the slot.
///
/// The driver and its bulk-IN pipe look up per-slot state several times per APDU; with
/// dictionaries each lookup hashed the slot number (SipHash), about 5 % of a short APDU's time
/// (issue 40). A reader has a handful of slots and the array grows only to the highest slot
/// used, at most 256 entries. Changes in place (``update(_:default:_:)``) go through the array's
/// element directly, so they copy nothing and allocate nothing.
struct SlotTable<Value> {
    private var storage: [Value?] = []

    init() {}

    /// The value of `slot`; setting nil removes it.
    subscript(slot: UInt8) -> Value? {
        get { Int(slot) < storage.count ? storage[Int(slot)] : nil }
        set {
            let index = Int(slot)
            if index >= storage.count {
                guard newValue != nil else { return }
                storage.append(contentsOf: repeatElement(nil, count: index + 1 - storage.count))
            }
            storage[index] = newValue
        }
    }

    /// Whether `slot` has a value.
    func contains(_ slot: UInt8) -> Bool {
        Int(slot) < storage.count && storage[Int(slot)] != nil
    }

    /// Changes the value of `slot` in place, first setting it to `defaultValue` when it has none.
    @inline(__always)
    mutating func update<Result>(
        _ slot: UInt8, default defaultValue: @autoclosure () -> Value, _ body: (inout Value) throws -> Result
    ) rethrows -> Result {
        if !contains(slot) { self[slot] = defaultValue() }
        return try body(&storage[Int(slot)]!)
    }

    /// Changes the value of `slot` in place; nil (and `body` not run) when it has none.
    @inline(__always)
    mutating func update<Result>(_ slot: UInt8, _ body: (inout Value) throws -> Result) rethrows -> Result? {
        guard contains(slot) else { return nil }
        return try body(&storage[Int(slot)]!)
    }

    /// Removes the value of `slot` and returns it.
    @discardableResult
    mutating func removeValue(forSlot slot: UInt8) -> Value? {
        guard Int(slot) < storage.count else { return nil }
        return storage[Int(slot)].take()
    }

    /// The slots that have values, in ascending order.
    var slots: [UInt8] {
        storage.indices.compactMap { storage[$0] == nil ? nil : UInt8(truncatingIfNeeded: $0) }
    }

    /// The values, in slot order.
    var values: [Value] { storage.compactMap { $0 } }
}

extension SlotTable: Sendable where Value: Sendable {}
