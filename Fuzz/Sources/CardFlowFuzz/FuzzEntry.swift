import Foundation

// libFuzzer's entry points. The binary holds every target; the environment variable
// CARDFLOW_FUZZ_TARGET names the one to run (CARDFLOW_FUZZ_TARGET=list prints them all).

/// The target this process runs, chosen once from the environment.
let selectedTarget: FuzzTarget = {
    let name = getenv("CARDFLOW_FUZZ_TARGET").map { String(cString: $0) } ?? ""
    if name == "list" {
        for target in FuzzTargets.all { print(target.name) }
        exit(0)
    }
    if name == "write-seeds" {
        let environment = ProcessInfo.processInfo.environment
        do {
            try SeedWriter.write(to: URL(fileURLWithPath: environment["CARDFLOW_FUZZ_CORPUS"] ?? "Fuzz/Corpus"),
                                 repository: URL(fileURLWithPath: environment["CARDFLOW_FUZZ_REPOSITORY"] ?? "."))
        } catch {
            FileHandle.standardError.write(Data("writing the seeds failed: \(error)\n".utf8))
            exit(1)
        }
        exit(0)
    }
    guard let target = FuzzTargets.all.first(where: { $0.name == name }) else {
        let names = FuzzTargets.all.map(\.name).joined(separator: ", ")
        FileHandle.standardError.write(Data("set CARDFLOW_FUZZ_TARGET to one of: \(names)\n".utf8))
        exit(2)
    }
    return target
}()

@_cdecl("LLVMFuzzerInitialize")
public func fuzzerInitialize(_ argc: UnsafeMutablePointer<CInt>?, _ argv: OpaquePointer?) -> CInt {
    _ = selectedTarget
    return 0
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzerTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    selectedTarget.run(bytes)
    return 0
}
