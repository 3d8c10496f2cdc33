import FuzzSupport
import TagFuzzTargets

// libFuzzer's entry points for the TagFuzzTargets only (CARDFLOW_FUZZ_TARGET names one of them).

let selectedTarget = selectFuzzTarget(from: TagFuzzTargets.all)

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
