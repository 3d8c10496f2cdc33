/// A simulated reader described by a `sim[:CARD][,option=value...]` selector, as `cardctl
/// --reader` and `cardd` take it.
///
/// ```swift
/// let spec = try SimulatorSpecification(parsing: "sim:iso7816,latency=200,lift-after=3,return-after=500")
/// ```
public struct SimulatorSpecification: Sendable, Hashable {
    /// Which card model sits on the reader (`none` for an empty reader).
    public var cardKind: SimulatedCardKind
    /// A descriptor dump to mimic (`profile=PATH`).
    public var profilePath: String?
    /// Slots of the simulated reader (`slots=N`, 1 to 8; a SAM-slot reader has several), each
    /// with a card of ``cardKind``. A `profile` decides its own slots (bMaxSlotIndex).
    public var slotCount: Int?
    /// How many slots work at once (`busy-slots=N`, bMaxCCIDBusySlots; all of them by default).
    public var busySlots: Int?
    /// Extra latency per exchange (`latency=MS`).
    public var latency: Duration = .zero
    /// The reader's timing model besides `latency`: `usb=MS` (USB round trip per CCID message),
    /// `firmware=MS` (reader firmware time per exchange), `rf=KBPS` (ISO 14443 bit rate: 106,
    /// 212, 424 or 848), `fsc=N` (the card's frame size, 16 to 256), `cmd-byte=US` and
    /// `resp-byte=US` (microseconds per command and response byte); decimals allowed. Zero
    /// everywhere by default.
    public var timing = TimingModel()
    /// The simulated reader runs on virtual time (`clock=virtual`): every delay of the timing
    /// model passes at once while the reader's clock moves by it, so a measurement taken with
    /// the same clock sees exactly the modelled time (one reader and one caller at a time).
    public var virtualClock = false
    /// The card leaves after this many APDUs (`lift-after=N`).
    public var liftAfter: Int?
    /// The card comes back this long after leaving (`return-after=MS`).
    public var returnAfter: Duration?
    /// A different card of the same kind comes back instead (`swap`).
    public var swap = false
    /// Seed for the card's identity and every random choice (`seed=N`).
    public var seed: UInt64 = 1
    /// The card's contents are loaded from and saved to this file (`state=PATH`).
    public var statePath: String?
    /// Memory size of tags that have one (`capacity=N` bytes; `ndef4`: the NDEF file).
    public var capacity: Int?
    /// ISO 15693 tags: bytes per block (`block-size=N`).
    public var blockSize: Int?
    /// ISO 15693 tags: blocks locked from the start (`locked=3+5`).
    public var lockedBlocks: Set<Int> = []
    /// ISO 15693 tags: accept multi-block writes (`multi-write`); off by default, as on many tags.
    public var multipleBlockWrite = false
    /// ISO 15693 tags: formatted for NDEF (Type 5 capability container); FeliCa Lite-S: NDEF on
    /// with a Type 3 attribute block (`ndef`).
    public var ndefFormatted = false
    /// DESFire: the card answers anti-collision with a fresh random UID each time it is powered
    /// (`random-uid`); only GetCardUID after authentication reveals the real one.
    public var randomUID = false
    /// TON card: a JSON file of factory activation data (`activation=PATH`) with the keys
    /// `serialNumber`, `password`, `commonSecret` and `iv`; vector A of the reference by default.
    public var activationPath: String?
    /// Replayed card: the APDU recording of a real card's conversation (`recording=PATH`, see
    /// ``/CardFlowSimulatorCards/APDURecording``); required by `sim:apdu-replay`.
    public var recordingPath: String?
    /// Seeded reader misbehaviour (`reader-chaos=SEED`, with `chaos-rate=P` the share of
    /// commands that meet a fault, 0.05 by default): time-extension and S(WTX) storms, lost,
    /// short, oversized, garbled and duplicated answers, bSeq games, stalls, unknown interrupt
    /// messages. Errors must come back typed; nothing may crash or hang.
    public var readerChaos: ReaderChaos?
    /// Time-extension frames before every answer to a card exchange (`time-extensions=N`, 1 to
    /// 16; see ``VirtualReaderConfiguration/timeExtensionsPerExchange``), 0 by default.
    public var timeExtensionsPerExchange = 0
    /// Fuzz card: the well-behaved card whose answers it spoils (`wrap=KIND`); none: every
    /// answer is hostile.
    public var fuzzWrappedKind: SimulatedCardKind?
    /// Fuzz card: the share of hostile answers in percent when wrapping a card (`hostile=P`).
    public var fuzzHostilePercent = 10
    /// Fuzz card: the chance in percent that a power-on starts an endless mode (`sticky=P`).
    public var fuzzStickyPercent = 5
    /// Fuzz card: the longest oversized answer (`max-response=N` bytes).
    public var fuzzMaxResponseLength = 1024
    /// ISO 7816 and APDU test cards: a contact card instead of a contactless one (`contact=t0|t1|dual`; `none` keeps the contactless card), with
    /// `ta1=HH` (hex Fi/Di, `none` to leave TA1 out; 96 by default), `specific` (TA2: specific
    /// mode), `pps=accept|default-speed|mute|mismatch` (how it answers a PPS request) and
    /// `edc=lrc|crc` (the T=1 error detection code; `crc` puts TC3 = 01 in the ATR).
    public var contactInterface: ContactInterface?
    /// ISO 7816 and APDU test cards: the contactless card even where a profile's reader cannot
    /// talk to it (`contact=none`; by default such a reader gets a dual-protocol contact card).
    public var contactlessCard = false

    public init(cardKind: SimulatedCardKind = .iso7816) {
        self.cardKind = cardKind
    }

    /// Parses a selector. Errors name the part that is wrong.
    public init(parsing selector: String) throws(SimulatorSpecificationError) {
        let parts = selector.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        let head = parts[0]
        guard head == "sim" || head.hasPrefix("sim:") else { throw .notSimulatorSelector(selector) }
        var kind = SimulatedCardKind.iso7816
        if head.hasPrefix("sim:") {
            let name = String(head.dropFirst(4))
            guard let parsed = SimulatedCardKind(rawValue: name) else { throw .unknownCardKind(name) }
            kind = parsed
        }
        self.init(cardKind: kind)
        var chaosRate: Double?
        var contactOptions: [String] = []
        for option in parts.dropFirst() {
            let pieces = option.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
            let key = pieces[0]
            let value = pieces.count == 2 ? pieces[1] : nil
            func require() throws(SimulatorSpecificationError) -> String {
                guard let value, !value.isEmpty else { throw .missingValue(option: key) }
                return value
            }
            func milliseconds() throws(SimulatorSpecificationError) -> Duration {
                let text = try require()
                guard let number = Int(text), number >= 0 else {
                    throw .invalidValue(option: key, value: text, expected: "milliseconds (a whole number >= 0)")
                }
                return .milliseconds(number)
            }
            func decimal(_ unit: String, scale: Double) throws(SimulatorSpecificationError) -> Duration {
                let text = try require()
                guard let number = Double(text), number >= 0, number <= 60_000_000 else {
                    throw .invalidValue(option: key, value: text, expected: "\(unit) (a number >= 0, decimals allowed)")
                }
                return .nanoseconds(Int64((number * scale).rounded()))
            }
            switch key {
            case "profile": profilePath = try require()
            case "slots", "busy-slots":
                let text = try require()
                guard let count = Int(text), (1...8).contains(count) else {
                    throw .invalidValue(option: key, value: text, expected: "a number of slots from 1 to 8")
                }
                if key == "slots" { slotCount = count } else { busySlots = count }
            case "latency": latency = try milliseconds()
            case "usb": timing.usbRoundTrip = try decimal("milliseconds", scale: 1e6)
            case "firmware": timing.readerFirmware = try decimal("milliseconds", scale: 1e6)
            case "cmd-byte": timing.perCommandByte = try decimal("microseconds", scale: 1e3)
            case "resp-byte": timing.perResponseByte = try decimal("microseconds", scale: 1e3)
            case "rf":
                let text = try require()
                guard let rate = Int(text), [106, 212, 424, 848].contains(rate) else {
                    throw .invalidValue(option: key, value: text, expected: "106, 212, 424 or 848 (kbit/s)")
                }
                timing.rfBitRate = rate
            case "fsc":
                let text = try require()
                guard let size = Int(text), (16...256).contains(size) else {
                    throw .invalidValue(option: key, value: text, expected: "a frame size from 16 to 256")
                }
                timing.frameSize = size
            case "clock":
                switch value {
                case "virtual": virtualClock = true
                case "real": virtualClock = false
                default: throw .invalidValue(option: key, value: value ?? "", expected: "virtual or real")
                }
            case "lift-after":
                let text = try require()
                guard let count = Int(text), count >= 0 else {
                    throw .invalidValue(option: key, value: text, expected: "a number of APDUs >= 0")
                }
                liftAfter = count
            case "return-after": returnAfter = try milliseconds()
            case "swap":
                guard value == nil else { throw .invalidValue(option: key, value: value ?? "", expected: "no value") }
                swap = true
            case "seed":
                let text = try require()
                guard let number = UInt64(text) else {
                    throw .invalidValue(option: key, value: text, expected: "an unsigned integer")
                }
                seed = number
            case "state": statePath = try require()
            case "block-size":
                let text = try require()
                guard let size = Int(text), (1...32).contains(size) else {
                    throw .invalidValue(option: key, value: text, expected: "1 to 32 bytes")
                }
                blockSize = size
            case "locked":
                let text = try require()
                let numbers = text.split(separator: "+").map { Int($0) }
                guard !numbers.isEmpty, numbers.allSatisfy({ $0 != nil && (0...255).contains($0!) }) else {
                    throw .invalidValue(option: key, value: text, expected: "block numbers joined by +, e.g. 3+5")
                }
                lockedBlocks = Set(numbers.compactMap { $0 })
            case "multi-write":
                guard value == nil else { throw .invalidValue(option: key, value: value ?? "", expected: "no value") }
                multipleBlockWrite = true
            case "ndef":
                guard value == nil else { throw .invalidValue(option: key, value: value ?? "", expected: "no value") }
                ndefFormatted = true
            case "random-uid":
                guard value == nil else { throw .invalidValue(option: key, value: value ?? "", expected: "no value") }
                randomUID = true
            case "activation": activationPath = try require()
            case "recording": recordingPath = try require()
            case "capacity":
                let text = try require()
                guard let bytes = Int(text), (3...0x7FFF).contains(bytes) else {
                    throw .invalidValue(option: key, value: text, expected: "a size in bytes from 3 to 32767")
                }
                capacity = bytes
            case "reader-chaos":
                let text = try require()
                guard let number = UInt64(text) else {
                    throw .invalidValue(option: key, value: text, expected: "a seed (an unsigned integer)")
                }
                readerChaos = ReaderChaos(seed: number)
            case "time-extensions":
                let text = try require()
                guard let count = Int(text), (1...16).contains(count) else {
                    throw .invalidValue(option: key, value: text, expected: "a count from 1 to 16")
                }
                timeExtensionsPerExchange = count
            case "chaos-rate":
                let text = try require()
                guard let rate = Double(text), (0...1).contains(rate) else {
                    throw .invalidValue(option: key, value: text, expected: "a probability from 0 to 1, e.g. 0.1")
                }
                chaosRate = rate
            case "wrap":
                let text = try require()
                guard let wrapped = SimulatedCardKind(rawValue: text), wrapped != .fuzz, wrapped != .none else {
                    throw .invalidValue(option: key, value: text, expected: "a card kind other than fuzz and none")
                }
                fuzzWrappedKind = wrapped
            case "hostile", "sticky":
                let text = try require()
                guard let percent = Int(text), (0...100).contains(percent) else {
                    throw .invalidValue(option: key, value: text, expected: "a percentage from 0 to 100")
                }
                if key == "hostile" { fuzzHostilePercent = percent } else { fuzzStickyPercent = percent }
            case "max-response":
                let text = try require()
                guard let bytes = Int(text), (1...65_536).contains(bytes) else {
                    throw .invalidValue(option: key, value: text, expected: "a size in bytes from 1 to 65536")
                }
                fuzzMaxResponseLength = bytes
            case "contact":
                let text = try require()
                let protocols: [UInt8]
                switch text {
                case "t0": protocols = [0]
                case "t1": protocols = [1]
                case "dual": protocols = [0, 1]
                case "none":
                    contactlessCard = true
                    contactInterface = nil
                    continue
                default: throw .invalidValue(option: key, value: text, expected: "t0, t1, dual or none")
                }
                contactlessCard = false
                var interface = contactInterface ?? ContactInterface(protocols: protocols, ta1: 0x96)
                interface.protocols = protocols
                contactInterface = interface
            case "ta1":
                let text = try require()
                let value: UInt8?
                if text == "none" {
                    value = nil
                } else {
                    guard text.count == 2, let byte = UInt8(text, radix: 16) else {
                        throw .invalidValue(option: key, value: text, expected: "two hex digits (e.g. 96) or none")
                    }
                    value = byte
                }
                contactOptions.append(key)
                var interface = contactInterface ?? ContactInterface(protocols: [0], ta1: 0x96)
                interface.ta1 = value
                contactInterface = interface
            case "specific":
                guard value == nil else { throw .invalidValue(option: key, value: value ?? "", expected: "no value") }
                contactOptions.append(key)
                var interface = contactInterface ?? ContactInterface(protocols: [0], ta1: 0x96)
                interface.specificMode = true
                contactInterface = interface
            case "pps":
                let text = try require()
                let behaviour: ContactInterface.PPSBehaviour
                switch text {
                case "accept": behaviour = .accept
                case "default-speed": behaviour = .defaultSpeedOnly
                case "mute": behaviour = .mute
                case "mismatch": behaviour = .mismatch
                default:
                    throw .invalidValue(option: key, value: text, expected: "accept, default-speed, mute or mismatch")
                }
                contactOptions.append(key)
                var interface = contactInterface ?? ContactInterface(protocols: [0], ta1: 0x96)
                interface.ppsBehaviour = behaviour
                contactInterface = interface
            case "edc":
                let text = try require()
                guard let detection = ContactInterface.ErrorDetection(rawValue: text) else {
                    throw .invalidValue(option: key, value: text, expected: "lrc or crc")
                }
                contactOptions.append(key)
                var interface = contactInterface ?? ContactInterface(protocols: [1], ta1: 0x96)
                interface.errorDetection = detection
                contactInterface = interface
            case "":
                throw .emptyOption
            default:
                throw .unknownOption(key)
            }
        }
        if kind == .apduReplay, recordingPath == nil {
            throw .missingValue(option: "recording")
        }
        if kind != .apduReplay, recordingPath != nil {
            throw .invalidValue(
                option: "recording", value: recordingPath ?? "",
                expected: "sim:apdu-replay (only the replayed card takes it)")
        }
        if let chaosRate {
            guard var chaos = readerChaos else {
                throw .invalidValue(
                    option: "chaos-rate", value: String(chaosRate), expected: "reader-chaos=SEED as well")
            }
            chaos.rate = chaosRate
            readerChaos = chaos
        }
        if kind != .fuzz,
            let option = ["wrap", "hostile", "sticky", "max-response"].first(where: { name in
                parts.dropFirst().contains { $0 == name || $0.hasPrefix(name + "=") }
            })
        {
            throw .invalidValue(option: option, value: "", expected: "sim:fuzz (only the fuzz card takes it)")
        }
        if let option = contactOptions.first,
            contactlessCard || !parts.dropFirst().contains(where: { $0.hasPrefix("contact=") })
        {
            throw .invalidValue(option: option, value: "", expected: "contact=t0|t1|dual as well")
        }
        if let interface = contactInterface, interface.errorDetection == .crc, !interface.protocols.contains(1) {
            throw .invalidValue(
                option: "edc", value: "crc", expected: "contact=t1 or contact=dual (the EDC is a T=1 parameter)")
        }
        if contactInterface != nil || contactlessCard, kind != .iso7816, kind != .apduTest {
            throw .invalidValue(
                option: "contact", value: "",
                expected: "sim:iso7816 or sim:apdu-test (the cards with a contact interface)")
        }
        if profilePath != nil,
            let option = ["slots", "busy-slots"].first(where: { name in
                parts.dropFirst().contains { $0.hasPrefix(name + "=") }
            })
        {
            throw .invalidValue(
                option: option, value: "", expected: "no profile= (a profile's descriptor decides its slots)")
        }
        if let busySlots, busySlots > slotCount ?? 1 {
            throw .invalidValue(option: "busy-slots", value: String(busySlots), expected: "at most slots=N")
        }
        if swap, returnAfter == nil {
            throw .invalidValue(option: "swap", value: "", expected: "return-after=MS as well")
        }
        if returnAfter != nil, liftAfter == nil {
            throw .invalidValue(option: "return-after", value: "", expected: "lift-after=N as well")
        }
    }
}

/// Card models the simulator can put on a reader.
public enum SimulatedCardKind: String, Sendable, Hashable, CaseIterable {
    case iso7816
    case desfire
    case ton
    case ndef4
    case type2
    case iso15693
    /// A ``/CardFlowSimulatorCards/SimulatedNTAG424Card``: NTAG 424 DNA with EV2 secure messaging and SUN mirroring.
    case ntag424
    case none
    /// A ``/CardFlowSimulatorCards/HostileCard``: seeded hostile answers, alone or spoiling a wrapped card's.
    case fuzz
    /// An ``/CardFlowSimulatorCards/APDUTestCard``: fixed answers for differential tests of APDU transport.
    case apduTest = "apdu-test"
    /// A ``/CardFlowSimulatorCards/SimulatedMIFAREClassicCard`` of 1K, answering its reader's storage-card dialect.
    case classic1k
    /// A ``/CardFlowSimulatorCards/SimulatedMIFAREClassicCard`` of 4K.
    case classic4k
    /// A ``/CardFlowSimulatorCards/SimulatedNTAG21xCard`` NTAG213, answering its reader's raw-frame route.
    case ntag213
    /// A ``/CardFlowSimulatorCards/SimulatedNTAG21xCard`` NTAG215.
    case ntag215
    /// A ``/CardFlowSimulatorCards/SimulatedNTAG21xCard`` NTAG216.
    case ntag216
    /// A ``/CardFlowSimulatorCards/SimulatedNTAG21xCard`` MIFARE Ultralight EV1 (MF0UL11).
    case ultralightEV1 = "ultralight-ev1"
    /// A ``/CardFlowSimulatorCards/SimulatedFeliCaLiteSCard``, answering its reader's raw-frame route (`ndef`: formatted).
    case felicaLiteS = "felica-lite-s"
    /// A ``/CardFlowSimulatorCards/RecordedConversationCard``: a real card's recorded APDUs
    /// (`recording=PATH`) played back, a typed mismatch for any command the recording did not expect.
    case apduReplay = "apdu-replay"

    /// The well-behaved models and `none`. `fuzz` is left out on purpose: it misbehaves by
    /// design, so code that cycles through every card (cardd's `--simulate`) must ask for it;
    /// so is `apdu-test`, a test instrument rather than a card anyone meets.
    public static var allCases: [SimulatedCardKind] {
        [.iso7816, .desfire, .ton, .ndef4, .type2, .iso15693, .ntag424, .none]
    }

    /// Every kind a selector accepts, `fuzz`, `apdu-test`, the MIFARE Classic, NTAG21x /
    /// Ultralight EV1 and FeliCa Lite-S cards included (those are not in `cardd --simulate`'s
    /// cycle yet).
    public static var selectable: [SimulatedCardKind] {
        allCases + [
            .fuzz, .apduTest, .classic1k, .classic4k, .ntag213, .ntag215, .ntag216, .ultralightEV1, .felicaLiteS,
            .apduReplay,
        ]
    }

    /// The Type 2 tag model of an NTAG21x / Ultralight EV1 kind; nil for other kinds.
    public var type2Model: SimulatedType2Model? {
        switch self {
        case .ntag213: .ntag213
        case .ntag215: .ntag215
        case .ntag216: .ntag216
        case .ultralightEV1: .ultralightEV1
        default: nil
        }
    }
}

/// A `sim:` selector that cannot be used.
public enum SimulatorSpecificationError: Error, Sendable, Hashable, CustomStringConvertible {
    case notSimulatorSelector(String)
    case unknownCardKind(String)
    case unknownOption(String)
    case missingValue(option: String)
    case invalidValue(option: String, value: String, expected: String)
    case emptyOption
    case cardKindUnavailable(SimulatedCardKind)

    public var description: String {
        switch self {
        case .notSimulatorSelector(let text):
            "'\(text)' is not a simulator selector (expected sim[:CARD][,option=value...])"
        case .unknownCardKind(let kind):
            "unknown simulated card '\(kind)'; known: \(SimulatedCardKind.selectable.map(\.rawValue).joined(separator: ", "))"
        case .unknownOption(let key):
            "unknown simulator option '\(key)'; known: profile, slots, busy-slots, latency, usb, firmware, rf, fsc, cmd-byte, resp-byte, clock, lift-after, return-after, swap, seed, state, capacity, block-size, locked, multi-write, ndef, random-uid, activation, recording, wrap, hostile, sticky, max-response, reader-chaos, chaos-rate, time-extensions, contact, ta1, specific, pps, edc"
        case .missingValue(let key): "simulator option '\(key)' needs a value (\(key)=...)"
        case .invalidValue(let key, let value, let expected):
            "simulator option '\(key)' has value '\(value)'; expected \(expected)"
        case .emptyOption: "empty simulator option (two commas in a row?)"
        case .cardKindUnavailable(let kind): "the simulated '\(kind.rawValue)' card model is not part of this build yet"
        }
    }
}
