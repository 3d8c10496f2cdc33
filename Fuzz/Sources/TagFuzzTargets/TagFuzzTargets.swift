#if canImport(FuzzSupport)
import FuzzSupport
#endif

/// Tag and key-store decoders: they link CardFlow, NDEF and ISO15693 but not the simulator, the
/// daemon or their crypto and networking libraries (see ``CCIDFuzzTargets`` for why that matters).
public enum TagFuzzTargets {
    public static let all: [FuzzTarget] = [
        FuzzTarget(name: "ndef-message", run: NDEFFuzzing.message),
        FuzzTarget(name: "ndef-tlv", run: NDEFFuzzing.tlvArea),
        FuzzTarget(name: "type4-cc", run: NDEFFuzzing.type4CapabilityContainer),
        FuzzTarget(name: "iso15693-system-info", run: ISO15693Fuzzing.systemInformation),
        FuzzTarget(name: "key-store", run: KeyStoreFuzzing.file),
    ]
}
