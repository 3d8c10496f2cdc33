/// The reader-side half of raw card frames for simulated storage cards: turns the reader's
/// pass-through pseudo-APDU into the raw frame the card sees, and wraps the card's raw answer
/// the way that reader family returns it. Written from the manuals (not from CardFlow's client):
///
/// - `pn532InCommunicateThru` — ACS ACR122U (072F:2200). ACR122U API v2.04: direct transmit
///   `FF 00 00 00 Lc` carries a PN532 command; NXP PN532 user manual §7.3.9 InCommunicateThru
///   `D4 42 DataOut` → `D5 43 Status DataIn`, status `01` = time-out (§7.1 error codes). A
///   PN532 command other than `D4 42` answers `63 00` here (not emulated).
/// - `acsDirectTransmit` — ACS ACR1252U (223B/223E), ACR1255U-J1 (223F): `FF 00 00 00 Lc frame`
///   → `answer 90 00`, `63 00` when the card does not answer (ACR1252U API manual; ACR1222U
///   manual's direct-transmit status table). A 4-bit ACK or NAK goes back as one byte here; a
///   real ACR1281U-C1 answered a WRITE's ACK with `63 00` instead (Stack Overflow 78194226, in
///   the card recordings). Which the ACR1252U does is not documented in what we read; CardFlow's
///   client copes with both.
/// - `part3TransparentExchange` — every other reader (Identiv, HID OMNIKEY, generic): PC/SC
///   part 3 §3.2.2.1.8. `FF C2 00 00 Lc` manages the session (`81 00` start, `82 00` end,
///   answered `C0 03 00 90 00` + `90 00`); `FF C2 00 01 Lc DOs` with a transceive DO `95 L frame`
///   (an optional timer DO `5F 46 04` is accepted) answers `C0 03 00 90 00 [92 01 04] 96 02 00 00
///   97 L answer` + `90 00`, or `C0 03 01 64 01` + `90 00` when the card is silent (the ACR1552U
///   transcript in `reference/ccid.md`). A transceive outside a session answers `C0 03 01 69 86`
///   (command not allowed; the code the readers give is not documented in what we read), a
///   malformed DO list `67 00`.
///
/// The frames are opaque here, so an ISO 14443-3 command (NTAG `30 04`) and a FeliCa frame
/// (its own length byte first) travel the same way.
public struct StorageRawFrameDialect: Sendable, Hashable {
    /// The three reader-family routes.
    public enum Route: String, Sendable, Hashable, CaseIterable {
        case pn532InCommunicateThru
        case acsDirectTransmit
        case part3TransparentExchange
    }

    /// What the reader makes of a pseudo-APDU.
    public enum Request: Sendable, Hashable {
        /// A raw frame for the card; answer it with ``StorageRawFrameDialect/response(to:)``.
        case frame([UInt8])
        /// The reader answered by itself (a session command, a malformed wrapper).
        case answered([UInt8])
        /// Not this route's pass-through command: the card model's part 3 handling decides.
        case notRaw
    }

    /// The card's answer to a raw frame.
    public enum CardAnswer: Sendable, Hashable {
        /// Whole bytes (a READ's 16 bytes, a PACK).
        case bytes([UInt8])
        /// A 4-bit ACK (`A`) or NAK (`0`, `1`, `4`, `5`) as a Type 2 tag sends it.
        case fourBits(UInt8)
        /// The card stays silent (an unknown command, a NAK the card answers with silence).
        case silence
    }

    public let route: Route
    /// Whether a part 3 transparent session is open; a power cycle ends it.
    public private(set) var transparentSessionOpen = false

    public init(route: Route) {
        self.route = route
    }

    /// The route of the reader with this USB vendor and product ID.
    public init(vendorID: UInt16, productID: UInt16) {
        self.init(route: SimulatedStorageReaderTable.entry(vendorID: vendorID, productID: productID).rawRoute)
    }

    /// The `FF` instructions this route uses, for ``VirtualCard/readerPassThroughInstructions``.
    public var instructions: Set<UInt8> { route == .part3TransparentExchange ? [0xC2] : [0x00] }

    /// The card was powered again: the reader's transparent session ends with it.
    public mutating func reset() {
        transparentSessionOpen = false
    }

    /// What the reader makes of `command`.
    public mutating func request(from command: [UInt8]) -> Request {
        guard command.count >= 2, command[0] == 0xFF, instructions.contains(command[1]) else { return .notRaw }
        switch route {
        case .pn532InCommunicateThru:
            guard let data = Self.shortData(command), command[2] == 0x00, command[3] == 0x00 else {
                return .answered([0x63, 0x00])
            }
            guard data.count >= 3, data[0] == 0xD4, data[1] == 0x42 else { return .answered([0x63, 0x00]) }
            return .frame(Array(data.dropFirst(2)))
        case .acsDirectTransmit:
            guard let data = Self.shortData(command), command[2] == 0x00, command[3] == 0x00, !data.isEmpty else {
                return .answered([0x63, 0x00])
            }
            return .frame(data)
        case .part3TransparentExchange:
            guard let data = Self.shortData(command), command[2] == 0x00 else { return .answered([0x67, 0x00]) }
            guard let objects = Self.dataObjects(data) else { return .answered([0x67, 0x00]) }
            switch command[3] {
            case 0x00:
                for object in objects {
                    switch object.tag {
                    case 0x81: transparentSessionOpen = true
                    case 0x82: transparentSessionOpen = false
                    default: return .answered([0xC0, 0x03, 0x01, 0x6A, 0x81, 0x90, 0x00])
                    }
                }
                return .answered([0xC0, 0x03, 0x00, 0x90, 0x00, 0x90, 0x00])
            case 0x01:
                guard transparentSessionOpen else { return .answered([0xC0, 0x03, 0x01, 0x69, 0x86, 0x90, 0x00]) }
                let transceive = objects.filter { $0.tag == 0x95 }
                guard transceive.count == 1, objects.allSatisfy({ $0.tag == 0x95 || $0.tag == 0x5F46 }),
                    let frame = transceive.first?.value, !frame.isEmpty
                else { return .answered([0xC0, 0x03, 0x01, 0x6A, 0x80, 0x90, 0x00]) }
                return .frame(frame)
            default:
                return .answered([0x6A, 0x86])
            }
        }
    }

    /// The reader's answer carrying the card's `answer` to the last frame.
    public func response(to answer: CardAnswer) -> [UInt8] {
        switch (route, answer) {
        case (.pn532InCommunicateThru, .bytes(let bytes)): [0xD5, 0x43, 0x00] + bytes + [0x90, 0x00]
        case (.pn532InCommunicateThru, .fourBits(let nibble)): [0xD5, 0x43, 0x00, nibble & 0x0F, 0x90, 0x00]
        case (.pn532InCommunicateThru, .silence): [0xD5, 0x43, 0x01, 0x90, 0x00]
        case (.acsDirectTransmit, .bytes(let bytes)): bytes + [0x90, 0x00]
        case (.acsDirectTransmit, .fourBits(let nibble)): [nibble & 0x0F, 0x90, 0x00]
        case (.acsDirectTransmit, .silence): [0x63, 0x00]
        case (.part3TransparentExchange, .bytes(let bytes)):
            [0xC0, 0x03, 0x00, 0x90, 0x00, 0x96, 0x02, 0x00, 0x00, 0x97] + Self.berLength(bytes.count) + bytes
                + [0x90, 0x00]
        case (.part3TransparentExchange, .fourBits(let nibble)):
            [
                0xC0, 0x03, 0x00, 0x90, 0x00, 0x92, 0x01, 0x04, 0x96, 0x02, 0x00, 0x00, 0x97, 0x01, nibble & 0x0F, 0x90,
                0x00,
            ]
        case (.part3TransparentExchange, .silence): [0xC0, 0x03, 0x01, 0x64, 0x01, 0x90, 0x00]
        }
    }

    // MARK: - Parsing

    /// The data of a short case 3 or case 4 APDU (`CLA INS P1 P2 Lc data [Le]`); nil when the
    /// length byte does not match.
    static func shortData(_ command: [UInt8]) -> [UInt8]? {
        guard command.count >= 6 else { return nil }
        let length = Int(command[4])
        guard length > 0, command.count == 5 + length || command.count == 6 + length else { return nil }
        return Array(command[5..<5 + length])
    }

    static func berLength(_ length: Int) -> [UInt8] {
        length < 0x80 ? [UInt8(truncatingIfNeeded: length)] : [0x81, UInt8(truncatingIfNeeded: length)]
    }

    /// One level of BER-TLV data objects; nil when malformed.
    static func dataObjects(_ bytes: [UInt8]) -> [(tag: UInt16, value: [UInt8])]? {
        var objects: [(tag: UInt16, value: [UInt8])] = []
        var index = 0
        while index < bytes.count {
            var tag = UInt16(bytes[index])
            index += 1
            if tag & 0x1F == 0x1F {
                guard index < bytes.count else { return nil }
                tag = tag << 8 | UInt16(bytes[index])
                index += 1
            }
            guard index < bytes.count else { return nil }
            var length = Int(bytes[index])
            index += 1
            if length == 0x81 {
                guard index < bytes.count else { return nil }
                length = Int(bytes[index])
                index += 1
            } else if length > 0x80 {
                return nil
            }
            guard length <= bytes.count - index else { return nil }
            objects.append((tag, Array(bytes[index..<index + length])))
            index += length
        }
        return objects
    }
}
