#if canImport(FuzzSupport)
import FuzzSupport
#endif

/// The CCID layer's targets: they link only the CCID module, so libFuzzer's per-input scan of
/// coverage counters stays small and these run many times faster than in the all-in-one binary.
public enum CCIDFuzzTargets {
    public static let all: [FuzzTarget] = [
        FuzzTarget(name: "ccid-response", run: CCIDFuzzing.response),
        FuzzTarget(name: "ccid-command", run: CCIDFuzzing.command),
        FuzzTarget(name: "ccid-interrupt", run: CCIDFuzzing.interrupt),
        FuzzTarget(name: "ccid-descriptor", run: CCIDFuzzing.descriptor),
        FuzzTarget(name: "atr", run: CCIDFuzzing.answerToReset),
        FuzzTarget(name: "t1-block", run: T1Fuzzing.block),
        FuzzTarget(name: "t1-host", run: T1Fuzzing.hostProtocol),
    ]
}
