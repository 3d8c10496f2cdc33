import Testing

@testable import CardFlowCCIDProtocol

/// `SlotTable` against a dictionary keyed by slot (what the driver and its bulk-IN pipe used
/// before): the same operations in the same order give the same contents, for every slot number.
@Suite("SlotTable: per-slot values as a dictionary keyed by bSlot would keep them")
struct SlotTableTests {
    @Test func emptyTableHasNothingForAnySlot() {
        var table = SlotTable<Int>()
        for slot in UInt8.min...UInt8.max {
            #expect(table[slot] == nil)
            #expect(!table.contains(slot))
            #expect(table.update(slot) { $0 += 1 } == nil)
            #expect(table.removeValue(forSlot: slot) == nil)
        }
        #expect(table.slots.isEmpty)
        #expect(table.values.isEmpty)
    }

    @Test func theHighestSlotAndRemovingBelowTheEnd() {
        var table = SlotTable<String>()
        table[255] = "last"
        table[0] = "first"
        table[7] = "seven"
        #expect(table.slots == [0, 7, 255])
        #expect(table.values == ["first", "seven", "last"])
        table[7] = nil
        #expect(table[7] == nil)
        #expect(table.removeValue(forSlot: 255) == "last")
        #expect(table.slots == [0])
        // Setting nil beyond what the table holds leaves it as it was.
        table[200] = nil
        #expect(table.slots == [0])
    }

    /// 20,000 seeded random operations on random slots, compared with a dictionary after each.
    @Test func agreesWithADictionaryOverRandomOperations() {
        var generator = SplitMix64(seed: 0x5107_7AB1E)
        var table = SlotTable<[Int]>()
        var reference: [UInt8: [Int]] = [:]
        for step in 0..<20_000 {
            // Mostly the low slots a reader has, sometimes any.
            let slot =
                generator.next() % 4 == 0
                ? UInt8.random(in: .min ... .max, using: &generator)
                : UInt8.random(in: 0...3, using: &generator)
            switch generator.next() % 6 {
            case 0:
                table[slot] = [step]
                reference[slot] = [step]
            case 1:
                table[slot] = nil
                reference[slot] = nil
            case 2:
                #expect(table.removeValue(forSlot: slot) == reference.removeValue(forKey: slot))
            case 3:
                let appended = table.update(slot) { value in
                    value.append(step)
                    return value.count
                }
                let expected = reference[slot].map { _ in
                    reference[slot]!.append(step)
                    return reference[slot]!.count
                }
                #expect(appended == expected)
            case 4:
                let count = table.update(slot, default: []) { value in
                    value.append(step)
                    return value.count
                }
                reference[slot, default: []].append(step)
                #expect(count == reference[slot]!.count)
            default:
                #expect(table.contains(slot) == (reference[slot] != nil))
            }
            #expect(table[slot] == reference[slot])
        }
        #expect(table.slots == reference.keys.sorted())
        #expect(table.values == reference.keys.sorted().map { reference[$0]! })
    }
}
