import Foundation
import FuzzSupport

// libFuzzer's entry points. The binary holds every target; the environment variable
// CARDFLOW_FUZZ_TARGET names the one to run (CARDFLOW_FUZZ_TARGET=list prints them all).

/// The target this process runs, chosen once from the environment.
let selectedTarget: FuzzTarget = {
    if getenv("CARDFLOW_FUZZ_TARGET").map({ String(cString: $0) }) == "write-seeds" {
        let environment = ProcessInfo.processInfo.environment
        do {
            try SeedWriter.write(
                to: URL(fileURLWithPath: environment["CARDFLOW_FUZZ_CORPUS"] ?? "Fuzz/Corpus"),
                repository: URL(fileURLWithPath: environment["CARDFLOW_FUZZ_REPOSITORY"] ?? "."))
        } catch {
            FileHandle.standardError.write(Data("writing the seeds failed: \(error)\n".utf8))
            exit(1)
        }
        exit(0)
    }
    return selectFuzzTarget(from: FuzzTargets.all)
}()

@_cdecl("LLVMFuzzerInitialize")
public func fuzzerInitialize(_ argc: UnsafeMutablePointer<CInt>?, _ argv: OpaquePointer?) -> CInt {
    _ = selectedTarget
    return 0
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzerTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    selectedTarget.run(data, count: size)
    return 0
}
