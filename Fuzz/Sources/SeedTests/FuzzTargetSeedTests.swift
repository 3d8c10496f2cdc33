import CardFlowSimulatorCards
import Foundation
import Testing

// The fuzz package's targets compiled into this one test module of the main package (the
// conditional imports in Fuzz/Sources skip the fuzz package's module boundaries here). Every
// target runs over its seed corpus and a fixed number of mutants of it: a broken invariant traps
// as it does under libFuzzer. This is CI's fuzz smoke; it needs no second, sanitizer-instrumented
// build of the whole package. Coverage-guided runs stay with Scripts/fuzz.sh.

/// Fuzz/Corpus (this file is Fuzz/Sources/SeedTests/FuzzTargetSeedTests.swift).
private let corpusFolder = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("Corpus")

/// Mutants per target: enough to reach past the seeds' exact bytes (about a second for the
/// slowest target in a debug build), few enough for every CI run.
private let mutantsPerTarget = 2_000

@Suite("Fuzz targets over their seeds and mutants of them")
struct FuzzTargetSeedTests {
    @Test("every target has seeds, and every seed folder a target")
    func corpusMatchesTargets() throws {
        let folders = try FileManager.default.contentsOfDirectory(atPath: corpusFolder.path).sorted()
        #expect(folders == FuzzTargets.all.map(\.name).sorted())
        for target in FuzzTargets.all {
            #expect(try !seeds(of: target.name).isEmpty, "no seeds for \(target.name)")
        }
    }

    @Test("the target keeps its invariants on its seeds and their mutants", arguments: FuzzTargets.all.map(\.name))
    func seedsAndMutants(name: String) throws {
        let target = try #require(FuzzTargets.all.first { $0.name == name })
        let seeds = try seeds(of: name)
        try #require(!seeds.isEmpty)
        target.run([])
        for seed in seeds { target.run(seed) }
        // Seeded by the target's name (its FNV-1a hash), not its place in the list: a mutant that
        // breaks an invariant is the same in every run, whatever targets are added.
        var generator = SeededRandom(
            seed: name.utf8.reduce(0xCBF2_9CE4_8422_2325) { ($0 ^ UInt64($1)) &* 0x100_0000_01B3 })
        for index in 0..<mutantsPerTarget {
            var bytes = seeds[index % seeds.count]
            for _ in 0..<Int.random(in: 1...4, using: &generator) {
                SeedMutation.apply(to: &bytes, donor: seeds.randomElement(using: &generator) ?? [], using: &generator)
            }
            target.run(bytes)
        }
    }

    private func seeds(of name: String) throws -> [[UInt8]] {
        let folder = corpusFolder.appendingPathComponent(name)
        return try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted().map {
            [UInt8](try Data(contentsOf: folder.appendingPathComponent($0)))
        }
    }
}

/// The edits libFuzzer's mutator makes most often, without its coverage feedback.
enum SeedMutation: CaseIterable {
    case flipBit, interestingByte, randomByte, addToByte, insertBytes, eraseBytes, copyPart, spliceDonor, truncate

    /// Inputs stay below this size (the largest seed is a few kilobytes).
    static let maxLength = 16_384

    static func apply(to bytes: inout [UInt8], donor: [UInt8], using generator: inout SeededRandom) {
        let mutation = allCases.randomElement(using: &generator) ?? .flipBit
        let position = bytes.isEmpty ? 0 : Int.random(in: 0..<bytes.count, using: &generator)
        switch mutation {
        case .flipBit where !bytes.isEmpty:
            bytes[position] ^= 1 << UInt8.random(in: 0...7, using: &generator)
        case .interestingByte where !bytes.isEmpty:
            bytes[position] = [0x00, 0x01, 0x7F, 0x80, 0xFE, 0xFF].randomElement(using: &generator) ?? 0
        case .randomByte where !bytes.isEmpty:
            bytes[position] = UInt8.random(in: 0...255, using: &generator)
        case .addToByte where !bytes.isEmpty:
            bytes[position] &+= UInt8.random(in: 1...255, using: &generator)
        case .eraseBytes where !bytes.isEmpty:
            let count = Int.random(in: 1...min(16, bytes.count - position), using: &generator)
            bytes.removeSubrange(position..<position + count)
        case .copyPart where !bytes.isEmpty:
            let start = Int.random(in: 0..<bytes.count, using: &generator)
            let part = bytes[start..<min(bytes.count, start + Int.random(in: 1...32, using: &generator))]
            bytes.insert(contentsOf: part, at: position)
        case .spliceDonor where !donor.isEmpty:
            let cut = Int.random(in: 0...donor.count, using: &generator)
            bytes = Array(bytes[..<position]) + donor[cut...]
        case .truncate where !bytes.isEmpty:
            bytes.removeLast(bytes.count - position)
        default:
            let count = Int.random(in: 1...8, using: &generator)
            bytes.insert(
                contentsOf: (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }, at: position)
        }
        if bytes.count > maxLength { bytes.removeLast(bytes.count - maxLength) }
    }
}
