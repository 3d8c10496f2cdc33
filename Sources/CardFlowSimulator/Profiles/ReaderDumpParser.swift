import CardFlowHex

/// Parser for the descriptor dump text format of the pcsc-lite CCID driver's `readers/*.txt`
/// (internal; use ``ReaderProfile/init(parsing:)``).
///
/// Format: one block per interface, starting at `idVendor:`. A line `name: value` whose name is
/// a known field is parsed strictly; a `name:` that looks like a field but is unknown is an
/// error; every other line (descriptions, bit explanations, driver diagnostics) is skipped,
/// except `Can't get iXxx string` (no string) and the exchange-level line under `dwFeatures`.
/// `bLength` / `bDescriptorType` before the `CCID Class Descriptor` line belong to the
/// interface descriptor, after it to the class descriptor.
struct ReaderDumpParser {
    private struct Field {
        var value: String
        var line: Int
    }

    private struct Block {
        var startLine: Int
        var fields: [String: Field] = [:]
        var inClassDescriptor = false
        var lastField = ""
        var exchangeLevelText: String?
        var missingStrings: Set<String> = []
        /// `Support N bps` lines under bNumDataRatesSupported (the reader's GET_DATA_RATES answer).
        var dataRates: [UInt32] = []
    }

    /// Fields of the device and interface descriptors.
    private static let interfaceFields: Set<String> = [
        "idVendor", "iManufacturer", "idProduct", "iProduct", "bcdDevice", "bLength", "bDescriptorType",
        "bInterfaceNumber", "bAlternateSetting", "bNumEndpoints", "bInterfaceClass", "bInterfaceSubClass",
        "bInterfaceProtocol", "iInterface",
    ]

    /// Fields of the CCID class descriptor.
    private static let classFields: Set<String> = [
        "bcdCCID", "bMaxSlotIndex", "bVoltageSupport", "dwProtocols", "dwDefaultClock", "dwMaximumClock",
        "bNumClockSupported", "dwDataRate", "dwMaxDataRate", "bNumDataRatesSupported", "dwMaxIFSD",
        "dwSynchProtocols", "dwMechanical", "dwFeatures", "dwMaxCCIDMessageLength", "bClassGetResponse",
        "bClassEnvelope", "wLcdLayout", "bPINSupport", "bMaxCCIDBusySlots",
    ]

    /// Parses a dump that describes one device (all blocks with the same `idVendor`,
    /// `idProduct` and `bcdDevice`).
    static func parse(_ text: String) throws(ReaderProfileError) -> ReaderProfile {
        let blocks = try parseBlocks(text)
        let first = try deviceFields(of: blocks[0])
        for block in blocks.dropFirst() {
            let device = try deviceFields(of: block)
            for (name, expected, found) in [
                ("idVendor", first.vendorID, device.vendorID),
                ("idProduct", first.productID, device.productID),
                ("bcdDevice", first.bcdDevice, device.bcdDevice),
            ] where expected != found {
                throw .inconsistentDevice(
                    line: block.fields[name]?.line ?? block.startLine, field: name,
                    expected: hex(expected), found: hex(found))
            }
        }
        return try profile(from: blocks)
    }

    /// Parses a dump that may describe several devices: one profile per distinct
    /// (`idVendor`, `idProduct`, `bcdDevice`), in order of first appearance.
    static func parseDevices(_ text: String) throws(ReaderProfileError) -> [ReaderProfile] {
        var groups: [(key: [UInt16], blocks: [Block])] = []
        for block in try parseBlocks(text) {
            let device = try deviceFields(of: block)
            let key = [device.vendorID, device.productID, device.bcdDevice]
            if let index = groups.firstIndex(where: { $0.key == key }) {
                groups[index].blocks.append(block)
            } else {
                groups.append((key, [block]))
            }
        }
        var profiles: [ReaderProfile] = []
        for group in groups { profiles.append(try profile(from: group.blocks)) }
        return profiles
    }

    /// Splits the text into interface blocks (at least one).
    private static func parseBlocks(_ text: String) throws(ReaderProfileError) -> [Block] {
        var blocks: [Block] = []
        var current: Block?
        var lineNumber = 0
        for rawLine in lines(of: text) {
            lineNumber += 1
            let line = trimmed(rawLine)
            if line.isEmpty { continue }

            if let (name, value) = fieldLine(line) {
                if name == "idVendor" {
                    if let finished = current { blocks.append(finished) }
                    current = Block(startLine: lineNumber)
                }
                guard var block = current else {
                    throw .unexpectedLine(line: lineNumber, expected: "idVendor", found: line)
                }
                guard interfaceFields.contains(name) || classFields.contains(name) else {
                    throw .unexpectedLine(line: lineNumber, expected: "a descriptor field", found: line)
                }
                let key =
                    (name == "bLength" || name == "bDescriptorType") && block.inClassDescriptor
                    ? "class." + name : name
                guard block.fields[key] == nil, !block.missingStrings.contains(key) else {
                    throw .duplicateField(line: lineNumber, field: name)
                }
                block.fields[key] = Field(value: value, line: lineNumber)
                block.lastField = name
                current = block
                continue
            }

            guard var block = current else {
                throw .unexpectedLine(line: lineNumber, expected: "idVendor", found: line)
            }
            if line == "CCID Class Descriptor" {
                block.inClassDescriptor = true
            } else if let name = unavailableString(line) {
                guard block.fields[name] == nil, !block.missingStrings.contains(name) else {
                    throw .duplicateField(line: lineNumber, field: name)
                }
                block.missingStrings.insert(name)
            } else if block.lastField == "bNumDataRatesSupported", line.hasPrefix("Support "), line.hasSuffix(" bps"),
                let rate = UInt32(line.dropFirst("Support ".count).dropLast(" bps".count))
            {
                block.dataRates.append(rate)
            } else if block.lastField == "dwFeatures", block.exchangeLevelText == nil,
                line.hasSuffix("level exchange")
            {
                block.exchangeLevelText = withoutBitPrefix(line)
            }
            current = block
        }
        if let finished = current { blocks.append(finished) }
        guard !blocks.isEmpty else { throw .noInterface }
        return blocks
    }

    /// A profile from blocks of one device; device-level strings come from the first block.
    private static func profile(from blocks: [Block]) throws(ReaderProfileError) -> ReaderProfile {
        let first = blocks[0]
        let device = try deviceFields(of: first)
        var interfaces: [ReaderInterfaceProfile] = []
        for block in blocks { interfaces.append(try interface(from: block)) }
        return ReaderProfile(
            vendorID: device.vendorID, productID: device.productID, bcdDevice: device.bcdDevice,
            manufacturer: first.fields["iManufacturer"]?.value,
            product: first.fields["iProduct"]?.value,
            interfaces: interfaces)
    }

    // MARK: - Lines

    /// The lines of `text`, split at LF, CR, CR LF, VT and FF. Works on UTF-8 bytes: the dumps
    /// are ASCII, and splitting by `Character` made parsing (and fuzzing it) several times slower.
    private static func lines(of text: String) -> [Substring] {
        var lines: [Substring] = []
        let bytes = text.utf8
        var start = bytes.startIndex
        var index = start
        while index < bytes.endIndex {
            let byte = bytes[index]
            guard byte == 0x0A || byte == 0x0D || byte == 0x0B || byte == 0x0C else {
                index = bytes.index(after: index)
                continue
            }
            lines.append(text[start..<index])
            index = bytes.index(after: index)
            if byte == 0x0D, index < bytes.endIndex, bytes[index] == 0x0A { index = bytes.index(after: index) }
            start = index
        }
        lines.append(text[start..<bytes.endIndex])
        return lines
    }

    /// ASCII whitespace (the dumps' only kind) around a line or value.
    private static func isBlank(_ byte: UInt8) -> Bool {
        byte == 0x20 || (0x09...0x0D).contains(byte)
    }

    private static func trimmed(_ line: Substring) -> String {
        let bytes = line.utf8
        var start = bytes.startIndex
        var end = bytes.endIndex
        while start < end, isBlank(bytes[start]) { start = bytes.index(after: start) }
        while end > start, isBlank(bytes[bytes.index(before: end)]) { end = bytes.index(before: end) }
        return String(line[start..<end])
    }

    /// `name: value` where name is a single ASCII identifier; `nil` for descriptive lines.
    private static func fieldLine(_ line: String) -> (String, String)? {
        guard let colon = line.utf8.firstIndex(of: UInt8(ascii: ":")) else { return nil }
        let name = line.utf8[..<colon]
        guard let first = name.first, isASCIILetter(first),
            name.allSatisfy({ isASCIILetter($0) || (0x30...0x39).contains($0) })
        else { return nil }
        return (String(line[..<colon]), trimmed(line[line.utf8.index(after: colon)...]))
    }

    private static func isASCIILetter(_ byte: UInt8) -> Bool {
        (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
    }

    /// `Can't get iInterface string[: reason]` → `"iInterface"`.
    private static func unavailableString(_ line: String) -> String? {
        for name in ["iManufacturer", "iProduct", "iInterface"] where line.hasPrefix("Can't get \(name) string") {
            return name
        }
        return nil
    }

    /// `02.... Short APDU level exchange` → `Short APDU level exchange`.
    private static func withoutBitPrefix(_ line: String) -> String {
        let parts = line.split(separator: " ", maxSplits: 1)
        if parts.count == 2, parts[0].count == 6,
            parts[0].allSatisfy({ $0 == "." || $0.isHexDigit })
        {
            return trimmed(parts[1])
        }
        return line
    }

    // MARK: - Blocks

    private static func deviceFields(of block: Block) throws(ReaderProfileError)
        -> (vendorID: UInt16, productID: UInt16, bcdDevice: UInt16)
    {
        (
            try hexValue("idVendor", in: block), try hexValue("idProduct", in: block),
            try bcdValue("bcdDevice", in: block)
        )
    }

    private static func interface(from block: Block) throws(ReaderProfileError) -> ReaderInterfaceProfile {
        let classLength: UInt8 = try hexValue("class.bLength", in: block)
        guard classLength == 0x36 else {
            let field = block.fields["class.bLength"]!
            throw .malformedValue(line: field.line, field: "bLength", expected: "0x36", found: field.value)
        }
        let protocols = try field("dwProtocols", in: block)
        let protocolWords = protocols.value.split(separator: " ")
        guard protocolWords.count == 2,
            let high = parseHex(protocolWords[0], as: UInt16.self),
            let low = parseHex(protocolWords[1], as: UInt16.self)
        else {
            throw .malformedValue(
                line: protocols.line, field: "dwProtocols", expected: "two 16-bit words like 0x0000 0x0002",
                found: protocols.value)
        }
        return ReaderInterfaceProfile(
            interfaceNumber: try decimalValue("bInterfaceNumber", in: block),
            alternateSetting: try decimalValue("bAlternateSetting", in: block),
            interfaceClass: try hexValue("bInterfaceClass", in: block),
            interfaceSubClass: try decimalValue("bInterfaceSubClass", in: block),
            interfaceProtocol: try decimalValue("bInterfaceProtocol", in: block),
            numberOfEndpoints: try decimalValue("bNumEndpoints", in: block),
            name: block.fields["iInterface"]?.value,
            bDescriptorType: try hexValue("class.bDescriptorType", in: block),
            bcdCCID: try bcdValue("bcdCCID", in: block),
            bMaxSlotIndex: try hexValue("bMaxSlotIndex", in: block),
            bVoltageSupport: try hexValue("bVoltageSupport", in: block),
            dwProtocols: UInt32(high) << 16 | UInt32(low),
            dwDefaultClock: try clockValue("dwDefaultClock", in: block),
            dwMaximumClock: try clockValue("dwMaximumClock", in: block),
            bNumClockSupported: try decimalValue("bNumClockSupported", in: block),
            dwDataRate: try decimalValue("dwDataRate", unit: "bps", in: block),
            dwMaxDataRate: try decimalValue("dwMaxDataRate", unit: "bps", in: block),
            bNumDataRatesSupported: try decimalValue("bNumDataRatesSupported", in: block),
            dwMaxIFSD: try decimalValue("dwMaxIFSD", in: block),
            dwSynchProtocols: try hexValue("dwSynchProtocols", in: block),
            dwMechanical: try hexValue("dwMechanical", in: block),
            dwFeatures: try hexValue("dwFeatures", in: block),
            dwMaxCCIDMessageLength: try decimalValue("dwMaxCCIDMessageLength", unit: "bytes", in: block),
            bClassGetResponse: try hexValue("bClassGetResponse", in: block),
            bClassEnvelope: try hexValue("bClassEnvelope", in: block),
            wLcdLayout: try hexValue("wLcdLayout", in: block),
            bPINSupport: try hexValue("bPINSupport", in: block),
            bMaxCCIDBusySlots: try decimalValue("bMaxCCIDBusySlots", in: block),
            declaredExchangeLevelText: block.exchangeLevelText,
            supportedDataRates: block.dataRates.isEmpty ? nil : block.dataRates)
    }

    // MARK: - Values

    private static func displayName(_ key: String) -> String {
        key.hasPrefix("class.") ? String(key.dropFirst(6)) : key
    }

    private static func field(_ key: String, in block: Block) throws(ReaderProfileError) -> Field {
        guard let field = block.fields[key] else {
            throw .missingField(line: block.startLine, field: displayName(key))
        }
        return field
    }

    /// First word of the value, for values followed by an explanation: `0x0B [Chip Card …]`.
    private static func firstWord(_ value: String) -> Substring {
        value.split(separator: " ", maxSplits: 1).first ?? ""
    }

    private static func hexValue<T: FixedWidthInteger & UnsignedInteger>(
        _ key: String, in block: Block
    ) throws(ReaderProfileError) -> T {
        let field = try field(key, in: block)
        guard let value = parseHex(firstWord(field.value), as: T.self) else {
            throw .malformedValue(
                line: field.line, field: displayName(key),
                expected:
                    "a \(T.bitWidth)-bit hexadecimal number like 0x\(String(repeating: "0", count: T.bitWidth / 4))",
                found: field.value)
        }
        return value
    }

    private static func decimalValue<T: FixedWidthInteger & UnsignedInteger>(
        _ key: String, unit: String? = nil, in block: Block
    ) throws(ReaderProfileError) -> T {
        let field = try field(key, in: block)
        let words = field.value.split(separator: " ")
        let unitMatches = unit.map { words.count >= 2 && words[1] == $0 } ?? true
        guard unitMatches, let word = words.first, word.allSatisfy(\.isASCII), let value = T(word, radix: 10) else {
            let what = unit.map { "a decimal number followed by \($0)" } ?? "a decimal number"
            throw .malformedValue(
                line: field.line, field: displayName(key), expected: "\(what) (at most \(T.max))", found: field.value)
        }
        return value
    }

    /// `1.10` → `0x0110` (both parts hexadecimal, as the dump prints `%X.%02X`).
    private static func bcdValue(_ key: String, in block: Block) throws(ReaderProfileError) -> UInt16 {
        let field = try field(key, in: block)
        let parts = firstWord(field.value).split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 2, (1...2).contains(parts[0].count), (1...2).contains(parts[1].count),
            parts.allSatisfy({ $0.allSatisfy(\.isHexDigit) }),
            let major = UInt16(parts[0], radix: 16), let minor = UInt16(parts[1], radix: 16)
        else {
            throw .malformedValue(
                line: field.line, field: displayName(key), expected: "a BCD version like 1.10", found: field.value)
        }
        return major << 8 | minor
    }

    /// `4.000 MHz` → 4000 (kHz).
    private static func clockValue(_ key: String, in block: Block) throws(ReaderProfileError) -> UInt32 {
        let field = try field(key, in: block)
        let words = field.value.split(separator: " ")
        let parts = words.first?.split(separator: ".", omittingEmptySubsequences: false) ?? []
        guard words.count >= 2, words[1] == "MHz", parts.count == 2, parts[1].count == 3,
            parts.allSatisfy({ !$0.isEmpty && $0.allSatisfy { $0.isASCII && $0.isNumber } }),
            let mhz = UInt32(parts[0]), let fraction = UInt32(parts[1])
        else {
            throw .malformedValue(
                line: field.line, field: displayName(key), expected: "a clock like 4.000 MHz", found: field.value)
        }
        let (product, overflow) = mhz.multipliedReportingOverflow(by: 1000)
        guard !overflow, product <= UInt32.max - fraction else {
            throw .malformedValue(
                line: field.line, field: displayName(key), expected: "a clock below 4294967.296 MHz", found: field.value
            )
        }
        return product + fraction
    }

    private static func parseHex<T: FixedWidthInteger & UnsignedInteger>(_ word: Substring, as type: T.Type) -> T? {
        guard word.hasPrefix("0x") || word.hasPrefix("0X") else { return nil }
        let digits = word.dropFirst(2)
        guard !digits.isEmpty, digits.allSatisfy(\.isHexDigit) else { return nil }
        return T(digits, radix: 16)
    }

    private static func hex(_ value: UInt16) -> String {
        "0x" + HexFormat.digits(value)
    }
}
