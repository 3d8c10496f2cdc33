#if canImport(CCIDFuzzTargets)
import CCIDFuzzTargets
#endif
#if canImport(FuzzSupport)
import FuzzSupport
#endif
#if canImport(TagFuzzTargets)
import TagFuzzTargets
#endif

/// Every fuzz target, by name. Each name is also a folder under Fuzz/Corpus. This binary holds
/// them all (for reproducing any crash and writing seeds); Scripts/fuzz.sh runs the CCID and tag
/// targets with their own, lighter binaries.
enum FuzzTargets {
    static let all: [FuzzTarget] =
        CCIDFuzzTargets.all + TagFuzzTargets.all + [
            FuzzTarget(name: "command-apdu", run: APDUFuzzing.command),
            FuzzTarget(name: "response-apdu", run: APDUFuzzing.response),
            FuzzTarget(name: "relay-message", run: RelayFuzzing.serviceMessage),
            FuzzTarget(name: "control-line", run: ControlFuzzing.lines),
            FuzzTarget(name: "daemon-config", run: DaemonConfigurationFuzzing.configuration),
            FuzzTarget(name: "card-state", run: CardStateFuzzing.stateFile),
            FuzzTarget(name: "reader-profile", run: ReaderProfileFuzzing.profile),
            FuzzTarget(name: "sun-message", run: NTAG424Fuzzing.sunMessage),
            FuzzTarget(name: "ntag424-file-settings", run: NTAG424Fuzzing.fileSettings),
            FuzzTarget(name: "ufr-frames", run: UFRFuzzing.frames),
            FuzzTarget(name: "ufr-discovery", run: UFRFuzzing.discoveryAnswer),
        ]
}
