/// The contact interface of a simulated card: the ATR it answers a reset with (built here from
/// ISO/IEC 7816-3 §8, independently of the driver's ATR parser) and how it takes a PPS request.
///
/// ```swift
/// let card = ISO7816Card(seed: 1, contactInterface: .dual(ta1: 0x96))
/// var crc = ContactInterface.t1Only()
/// crc.errorDetection = .crc   // TC3 = 01: T=1 blocks end in a two-byte CRC
/// ```
public struct ContactInterface: Sendable, Hashable, Codable {
    /// Protocol numbers offered, the first being the default (TD1): `[0]`, `[1]` or `[0, 1]`.
    public var protocols: [UInt8]
    /// TA1 (FI in the high nibble, DI in the low one); nil leaves it out (Fd/Dd only).
    public var ta1: UInt8?
    /// Specific mode: TA2 fixes the card to its first protocol at the TA1 speed; it takes no PPS.
    public var specificMode: Bool
    /// TC1, the extra guard time N.
    public var extraGuardTime: UInt8?
    /// TC2, the T=0 waiting integer.
    public var waitingInteger: UInt8?
    /// TA3 for T=1, the IFSC.
    public var ifsc: UInt8
    /// The error detection code of T=1 blocks, announced in TC3 (ISO/IEC 7816-3 §11.4.4: the
    /// first TC for T=1, bit 1 set for CRC); LRC leaves TC3 out. Only cards offering T=1 use it.
    public var errorDetection: ErrorDetection
    /// How the card answers a PPS request.
    public var ppsBehaviour: PPSBehaviour
    /// Whether the card takes extended-length commands in ENVELOPE (INS C2) over T=0.
    public var supportsEnvelope: Bool
    /// The historical bytes.
    public var historicalBytes: [UInt8]

    /// The error detection code that ends a T=1 block (ISO/IEC 7816-3 §11.4.4).
    public enum ErrorDetection: String, Sendable, Hashable, Codable, CaseIterable {
        /// Longitudinal redundancy check, one byte: the default.
        case lrc
        /// Cyclic redundancy check, two bytes.
        case crc
    }

    /// How a card answers PPS.
    public enum PPSBehaviour: String, Sendable, Hashable, Codable, CaseIterable {
        /// Echoes a valid request for a protocol it offers at a speed within TA1.
        case accept
        /// Takes the protocol but answers without PPS1: Fd/Dd stay.
        case defaultSpeedOnly
        /// Does not answer (the reader reports a mute card); needs a reset afterwards.
        case mute
        /// Answers with a PPS1 other than the proposed one; needs a reset afterwards.
        case mismatch
    }

    public init(
        protocols: [UInt8], ta1: UInt8? = nil, specificMode: Bool = false, extraGuardTime: UInt8? = nil,
        waitingInteger: UInt8? = nil, ifsc: UInt8 = 254, errorDetection: ErrorDetection = .lrc,
        ppsBehaviour: PPSBehaviour = .accept, supportsEnvelope: Bool = true,
        historicalBytes: [UInt8] = Array("CardFlow".utf8)
    ) {
        precondition([[0], [1], [0, 1]].contains(protocols), "a contact card offers [0], [1] or [0, 1]")
        precondition((1...254).contains(ifsc), "IFSC must be 1...254")
        self.protocols = protocols
        self.ta1 = ta1
        self.specificMode = specificMode
        self.extraGuardTime = extraGuardTime
        self.waitingInteger = waitingInteger
        self.ifsc = ifsc
        self.errorDetection = errorDetection
        self.ppsBehaviour = ppsBehaviour
        self.supportsEnvelope = supportsEnvelope
        self.historicalBytes = Array(historicalBytes.prefix(15))
    }

    /// Decodes a contact interface from a card state file, which someone else may have written:
    /// the checks of ``init(protocols:ta1:specificMode:extraGuardTime:waitingInteger:ifsc:errorDetection:ppsBehaviour:supportsEnvelope:historicalBytes:)``
    /// become decoding errors instead of traps. Files written before ``errorDetection`` existed
    /// decode with LRC.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let protocols = try container.decode([UInt8].self, forKey: .protocols)
        guard [[0], [1], [0, 1]].contains(protocols) else {
            throw DecodingError.dataCorruptedError(
                forKey: .protocols, in: container,
                debugDescription: "a contact card offers [0], [1] or [0, 1], not \(protocols)")
        }
        let ifsc = try container.decode(UInt8.self, forKey: .ifsc)
        guard (1...254).contains(ifsc) else {
            throw DecodingError.dataCorruptedError(
                forKey: .ifsc, in: container, debugDescription: "IFSC \(ifsc) is not 1...254")
        }
        let historicalBytes = try container.decode([UInt8].self, forKey: .historicalBytes)
        guard historicalBytes.count <= 15 else {
            throw DecodingError.dataCorruptedError(
                forKey: .historicalBytes, in: container,
                debugDescription: "\(historicalBytes.count) historical bytes; an ATR has at most 15")
        }
        self.init(
            protocols: protocols, ta1: try container.decodeIfPresent(UInt8.self, forKey: .ta1),
            specificMode: try container.decode(Bool.self, forKey: .specificMode),
            extraGuardTime: try container.decodeIfPresent(UInt8.self, forKey: .extraGuardTime),
            waitingInteger: try container.decodeIfPresent(UInt8.self, forKey: .waitingInteger), ifsc: ifsc,
            errorDetection: try container.decodeIfPresent(ErrorDetection.self, forKey: .errorDetection) ?? .lrc,
            ppsBehaviour: try container.decode(PPSBehaviour.self, forKey: .ppsBehaviour),
            supportsEnvelope: try container.decode(Bool.self, forKey: .supportsEnvelope),
            historicalBytes: historicalBytes)
    }

    /// A T=0-only card.
    public static func t0Only(ta1: UInt8? = 0x96) -> ContactInterface { ContactInterface(protocols: [0], ta1: ta1) }
    /// A T=1-only card.
    public static func t1Only(ta1: UInt8? = 0x96) -> ContactInterface { ContactInterface(protocols: [1], ta1: ta1) }
    /// A card offering T=0 (its default) and T=1.
    public static func dual(ta1: UInt8? = 0x96) -> ContactInterface { ContactInterface(protocols: [0, 1], ta1: ta1) }

    /// The card's default protocol (TD1).
    public var defaultProtocol: UInt8 { protocols[0] }

    /// The protocols the card runs: only the default one in specific mode.
    public var availableProtocols: [UInt8] { specificMode ? [defaultProtocol] : protocols }

    /// The ATR: TS 3B, T0, the interface bytes, the historical bytes and TCK (present unless
    /// only T=0 is indicated).
    ///
    /// Group 1 holds TA1 and TC1; TD1 names the default protocol. Group 2 holds TA2 (specific
    /// mode) and TC2. A card offering T=1 has a third group after TD2 = T=1 with TA3 (IFSC) and,
    /// for CRC, TC3 = 01.
    public var answerToReset: [UInt8] {
        let offersT1 = protocols.contains(1)
        let hasGroup2 = specificMode || waitingInteger != nil
        let hasTD1 = offersT1 || hasGroup2 || defaultProtocol != 0
        // T0's low nibble counts the historical bytes: at most 15 (the property is settable).
        let historical = historicalBytes.prefix(15)
        var t0 = UInt8(truncatingIfNeeded: historical.count)
        if ta1 != nil { t0 |= 0x10 }
        if extraGuardTime != nil { t0 |= 0x40 }
        if hasTD1 { t0 |= 0x80 }
        var bytes: [UInt8] = [0x3B, t0]
        if let ta1 { bytes.append(ta1) }
        if let extraGuardTime { bytes.append(extraGuardTime) }
        if hasTD1 {
            var td1 = defaultProtocol
            if specificMode { td1 |= 0x10 }
            if waitingInteger != nil { td1 |= 0x40 }
            if offersT1 { td1 |= 0x80 }
            bytes.append(td1)
            if specificMode { bytes.append(defaultProtocol) }
            if let waitingInteger { bytes.append(waitingInteger) }
            if offersT1 {
                // TD2: T=1 in the low nibble, TA3 (bit 5) and TC3 (bit 7) present.
                bytes += errorDetection == .crc ? [0x51, ifsc, 0x01] : [0x11, ifsc]
            }
        }
        bytes += historical
        if offersT1 { bytes.append(bytes.dropFirst().reduce(0, ^)) }
        return bytes
    }
}
