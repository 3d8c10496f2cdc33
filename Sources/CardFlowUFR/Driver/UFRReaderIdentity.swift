/// What a uFR reader says about itself: GET_READER_TYPE, GET_SERIAL_NUMBER and
/// GET_FIRMWARE_VERSION.
public struct UFRReaderIdentity: Sendable, Hashable, CustomStringConvertible {
    /// The reader type (uint32, `D1180022` for a Nano Classic).
    public let readerType: UInt32
    /// The serial number text (`UN123456`, `ON…` for an Online), nil when the reader did not give one.
    public let serialNumber: String?
    /// Firmware major and minor.
    public let firmware: (major: UInt8, minor: UInt8)

    /// - Parameters:
    ///   - readerType: the type code.
    ///   - serialNumber: the serial text.
    ///   - firmware: major and minor version.
    public init(readerType: UInt32, serialNumber: String?, firmware: (major: UInt8, minor: UInt8)) {
        self.readerType = readerType
        self.serialNumber = serialNumber
        self.firmware = firmware
    }

    /// The type code as the API's appendix prints it (`D1180022`).
    public var readerTypeText: String {
        let hex = String(readerType, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, 8 - hex.count)) + hex
    }

    /// The model name the API's appendix gives the type, nil for others.
    public var modelName: String? {
        switch readerType {
        case 0xD115_0021: "uFR Classic"
        case 0xD215_0021: "uFR Advance"
        case 0xD118_0022: "uFR Nano Classic"
        case 0xD318_0022: "uFR Nano PRO"
        case 0xD119_0222: "uFR Nano RS232"
        case 0xD138_0022: "uFR Nano Plus"
        case 0xD11A_0022: "uFR Classic Card Size"
        default: nil
        }
    }

    public var description: String {
        let model = modelName ?? "uFR reader type \(readerTypeText)"
        return "\(model)\(serialNumber.map { " \($0)" } ?? ""), firmware \(firmware.major).\(firmware.minor)"
    }

    public static func == (left: Self, right: Self) -> Bool {
        left.readerType == right.readerType && left.serialNumber == right.serialNumber
            && left.firmware.major == right.firmware.major && left.firmware.minor == right.firmware.minor
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(readerType)
        hasher.combine(serialNumber)
        hasher.combine(firmware.major)
        hasher.combine(firmware.minor)
    }
}
