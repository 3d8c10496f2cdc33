/// The two status bytes SW1 SW2 that end every response APDU (ISO/IEC 7816-4 section 5.6).
public struct StatusWord: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// SW1 in the high byte, SW2 in the low byte, e.g. `0x6A82`.
    public let rawValue: UInt16

    public init(rawValue: UInt16) {
        self.rawValue = rawValue
    }

    /// Creates a status word from its value, e.g. `StatusWord(0x9000)`.
    public init(_ rawValue: UInt16) {
        self.rawValue = rawValue
    }

    public init(sw1: UInt8, sw2: UInt8) {
        self.rawValue = UInt16(sw1) << 8 | UInt16(sw2)
    }

    public var sw1: UInt8 { UInt8(truncatingIfNeeded: rawValue >> 8) }
    public var sw2: UInt8 { UInt8(truncatingIfNeeded: rawValue) }

    /// `9000`: normal processing, no further qualification.
    public static let success = StatusWord(0x9000)
    /// `6700`: wrong length.
    public static let wrongLength = StatusWord(0x6700)
    /// `6982`: security status not satisfied.
    public static let securityStatusNotSatisfied = StatusWord(0x6982)
    /// `6985`: conditions of use not satisfied.
    public static let conditionsNotSatisfied = StatusWord(0x6985)
    /// `6A80`: incorrect parameters in the command data field.
    public static let wrongData = StatusWord(0x6A80)
    /// `6A82`: file or application not found.
    public static let fileNotFound = StatusWord(0x6A82)
    /// `6A86`: incorrect parameters P1-P2.
    public static let incorrectP1P2 = StatusWord(0x6A86)
    /// `6B00`: wrong parameters P1-P2.
    public static let wrongParameters = StatusWord(0x6B00)
    /// `6D00`: instruction code not supported or invalid.
    public static let instructionNotSupported = StatusWord(0x6D00)
    /// `6E00`: class not supported.
    public static let classNotSupported = StatusWord(0x6E00)

    /// Whether this is `9000`.
    public var isSuccess: Bool { rawValue == 0x9000 }

    /// Whether this is a warning (`62xx` or `63xx`): the command was processed, with a caveat.
    public var isWarning: Bool { sw1 == 0x62 || sw1 == 0x63 }

    /// For `61xx`, the number of response bytes still available through GET RESPONSE
    /// (`6100` means 256); `nil` otherwise.
    public var bytesAvailable: Int? {
        sw1 == 0x61 ? Self.countFromSW2(sw2) : nil
    }

    /// For `6Cxx`, the exact Ne the card wants the command re-sent with (`6C00` means 256);
    /// `nil` otherwise.
    public var correctLength: Int? {
        sw1 == 0x6C ? Self.countFromSW2(sw2) : nil
    }

    /// For `63Cx`, the counter value `x` (0...15), usually the verification retries left; `nil` otherwise.
    public var counter: Int? {
        rawValue & 0xFFF0 == 0x63C0 ? Int(sw2 & 0x0F) : nil
    }

    /// The status word as 4 upper-case hex digits, e.g. `"6A82"`.
    public var hexString: String {
        [sw1, sw2].hexString
    }

    /// What ISO/IEC 7816-4 says the status word means, for the common ones; `nil` for others
    /// (which are often proprietary).
    public var meaning: String? {
        if let count = bytesAvailable { return "\(count) response \(count == 1 ? "byte" : "bytes") still available" }
        if let count = correctLength { return "wrong Le field; \(count) \(count == 1 ? "byte" : "bytes") available" }
        if let counter { return "verification failed, counter \(counter)" }
        return Self.meanings[rawValue]
    }

    /// For example `"6A82 (file or application not found)"`, or just `"9F10"` when the meaning is unknown.
    public var description: String {
        guard let meaning else { return hexString }
        return "\(hexString) (\(meaning))"
    }

    private static func countFromSW2(_ sw2: UInt8) -> Int {
        sw2 == 0 ? 256 : Int(sw2)
    }

    // ISO/IEC 7816-4:2020 tables 5 and 6.
    private static let meanings: [UInt16: String] = [
        0x9000: "success",
        0x6200: "warning: non-volatile memory unchanged",
        0x6281: "warning: part of returned data may be corrupted",
        0x6282: "warning: end of file or record reached before reading Ne bytes",
        0x6283: "warning: selected file deactivated",
        0x6284: "warning: file control information not formatted per ISO 7816-4",
        0x6285: "warning: selected file in termination state",
        0x6286: "warning: no input data available from a sensor on the card",
        0x6300: "warning: non-volatile memory changed",
        0x6381: "warning: file filled up by the last write",
        0x6400: "execution error: non-volatile memory unchanged",
        0x6401: "execution error: immediate response required by the card",
        0x6500: "execution error: non-volatile memory changed",
        0x6581: "memory failure",
        0x6700: "wrong length",
        0x6800: "functions in CLA not supported",
        0x6881: "logical channel not supported",
        0x6882: "secure messaging not supported",
        0x6883: "last command of the chain expected",
        0x6884: "command chaining not supported",
        0x6900: "command not allowed",
        0x6981: "command incompatible with file structure",
        0x6982: "security status not satisfied",
        0x6983: "authentication method blocked",
        0x6984: "reference data not usable",
        0x6985: "conditions of use not satisfied",
        0x6986: "command not allowed (no current EF)",
        0x6987: "expected secure messaging data objects missing",
        0x6988: "incorrect secure messaging data objects",
        0x6A00: "wrong parameters P1-P2",
        0x6A80: "incorrect parameters in the command data field",
        0x6A81: "function not supported",
        0x6A82: "file or application not found",
        0x6A83: "record not found",
        0x6A84: "not enough memory space in the file",
        0x6A85: "Nc inconsistent with TLV structure",
        0x6A86: "incorrect parameters P1-P2",
        0x6A87: "Nc inconsistent with parameters P1-P2",
        0x6A88: "referenced data or reference data not found",
        0x6A89: "file already exists",
        0x6A8A: "DF name already exists",
        0x6B00: "wrong parameters P1-P2",
        0x6D00: "instruction code not supported or invalid",
        0x6E00: "class not supported",
        0x6F00: "no precise diagnosis",
    ]
}
