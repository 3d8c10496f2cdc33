/// Every fuzz target, by name. Each name is also a folder under Fuzz/Corpus.
enum FuzzTargets {
    static let all: [FuzzTarget] = [
        FuzzTarget(name: "ccid-response", run: CCIDFuzzing.response),
        FuzzTarget(name: "ccid-command", run: CCIDFuzzing.command),
        FuzzTarget(name: "ccid-interrupt", run: CCIDFuzzing.interrupt),
        FuzzTarget(name: "ccid-descriptor", run: CCIDFuzzing.descriptor),
        FuzzTarget(name: "atr", run: CCIDFuzzing.answerToReset),
        FuzzTarget(name: "t1-block", run: T1Fuzzing.block),
        FuzzTarget(name: "t1-host", run: T1Fuzzing.hostProtocol),
        FuzzTarget(name: "command-apdu", run: APDUFuzzing.command),
        FuzzTarget(name: "response-apdu", run: APDUFuzzing.response),
        FuzzTarget(name: "ndef-message", run: NDEFFuzzing.message),
        FuzzTarget(name: "ndef-tlv", run: NDEFFuzzing.tlvArea),
        FuzzTarget(name: "type4-cc", run: NDEFFuzzing.type4CapabilityContainer),
        FuzzTarget(name: "iso15693-system-info", run: ISO15693Fuzzing.systemInformation),
        FuzzTarget(name: "relay-message", run: RelayFuzzing.serviceMessage),
        FuzzTarget(name: "control-line", run: ControlFuzzing.lines),
        FuzzTarget(name: "daemon-config", run: DaemonConfigurationFuzzing.configuration),
        FuzzTarget(name: "key-store", run: KeyStoreFuzzing.file),
        FuzzTarget(name: "card-state", run: CardStateFuzzing.stateFile),
        FuzzTarget(name: "reader-profile", run: ReaderProfileFuzzing.profile),
    ]
}
