import Foundation

/// The target a fuzzing process runs: the one named by the environment variable
/// CARDFLOW_FUZZ_TARGET among `targets`. `list` prints the names (one per line) and exits; an
/// unknown name prints the choices and exits with status 2.
public func selectFuzzTarget(from targets: [FuzzTarget]) -> FuzzTarget {
    let name = getenv("CARDFLOW_FUZZ_TARGET").map { String(cString: $0) } ?? ""
    if name == "list" {
        for target in targets { print(target.name) }
        exit(0)
    }
    guard let target = targets.first(where: { $0.name == name }) else {
        let names = targets.map(\.name).joined(separator: ", ")
        FileHandle.standardError.write(Data("set CARDFLOW_FUZZ_TARGET to one of: \(names)\n".utf8))
        exit(2)
    }
    return target
}

extension FuzzTarget {
    /// Runs the target on libFuzzer's input (a null pointer is the empty input).
    public func run(_ data: UnsafePointer<UInt8>?, count: Int) {
        run(data.map { Array(UnsafeBufferPointer(start: $0, count: count)) } ?? [])
    }
}
