import CardFlow
import Foundation

/// The activation tuple a TON Labs security card is personalised with at the factory, in the
/// form the card's owner later receives it from the backend: the 128-byte activation password
/// `P1`, the 32-byte common secret `CS`, the 16-byte `IV` and the 24-digit serial number.
///
/// The card itself keeps only what the factory derives from it (`B1 = AES-128-CBC(SHA256(P1)[0..<16], IV, P1)`,
/// `ECS` = the same over `CS`, and the serial number); see ``SimulatedTONCard``.
///
/// The JSON form (`activation=PATH` of the simulator) is
/// ```json
/// {"serialNumber": "504394802433901126813236", "password": "F4B0…", "commonSecret": "7256…", "iv": "1A55…"}
/// ```
/// with hex strings (either case) for `password`, `commonSecret` and `iv`.
///
/// ```swift
/// let data = try TONFactoryData(contentsOfFile: "/tmp/activation.json")
/// let card = SimulatedTONCard(seed: 7, factoryData: data)
/// ```
public struct TONFactoryData: Codable, Sendable, Hashable {
    /// The serial number as 24 decimal digits, e.g. `"504394802433901126813236"`.
    public var serialNumber: String
    /// The activation password P1, 128 bytes, as hex.
    public var password: String
    /// The common secret CS, 32 bytes, as hex.
    public var commonSecret: String
    /// The AES-CBC initialisation vector, 16 bytes, as hex.
    public var iv: String

    /// Creates factory data from its four fields (checked when a card is made or the file is read).
    public init(serialNumber: String, password: String, commonSecret: String, iv: String) {
        self.serialNumber = serialNumber
        self.password = password
        self.commonSecret = commonSecret
        self.iv = iv
    }

    /// Reads and validates factory data from a JSON file.
    ///
    /// - Throws: ``TONFactoryDataError`` for a missing or unreadable file, bad JSON, bad hex
    ///   or wrong lengths.
    public init(contentsOfFile path: String) throws(TONFactoryDataError) {
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw .unreadable(path: path, reason: "\(error)")
        }
        let decoded: TONFactoryData
        do {
            decoded = try JSONDecoder().decode(TONFactoryData.self, from: data)
        } catch {
            throw .invalidJSON(path: path, reason: "\(error)")
        }
        _ = try decoded.validated()
        self = decoded
    }

    /// Section 8.1's vector A: serial number `504394802433901126813236`, the password P1, the
    /// common secret CS and IV `1A550F4B413D0E971C28293F9183EA8A`.
    public static let vectorA = TONFactoryData(
        serialNumber: "504394802433901126813236",
        password: "F4B072E1DF2DB7CF6CD0CD681EC5CD2D071458D278E6546763CBB4860F8082FE"
            + "14418C8A8A55E2106CBC6CB1174F4BA6D827A26A2D205F99B7E00401DA4C15AC"
            + "C943274B92258114B5E11C16DA64484034F93771547FBE60DA70E273E6BD64F8"
            + "A4201A9913B386BCA55B6678CFD7E7E68A646A7543E9E439DD5B60B9615079FE",
        commonSecret: "7256EFE7A77AFC7E9088266EF27A93CB01CD9432E0DB66D600745D506EE04AC4",
        iv: "1A550F4B413D0E971C28293F9183EA8A")

    /// The decoded bytes, checked.
    struct Bytes: Sendable, Hashable {
        /// 24 digit values 0…9 (not ASCII), as on the wire.
        let serialNumber: [UInt8]
        let password: [UInt8]
        let commonSecret: [UInt8]
        let iv: [UInt8]
    }

    /// The fields decoded and checked: 24 decimal digits, 128/32/16 bytes of hex.
    func validated() throws(TONFactoryDataError) -> Bytes {
        let digits = Array(serialNumber.utf8)
        guard digits.count == 24, digits.allSatisfy({ (0x30...0x39).contains($0) }) else {
            throw .badSerialNumber(serialNumber)
        }
        func field(_ name: String, _ text: String, length: Int) throws(TONFactoryDataError) -> [UInt8] {
            guard let bytes = [UInt8](persistedHex: text) else { throw .badHex(field: name) }
            guard bytes.count == length else { throw .wrongLength(field: name, expected: length, actual: bytes.count) }
            return bytes
        }
        return Bytes(
            serialNumber: digits.map { $0 - 0x30 },
            password: try field("password", password, length: 128),
            commonSecret: try field("commonSecret", commonSecret, length: 32),
            iv: try field("iv", iv, length: 16))
    }
}

/// Why factory data for a ``SimulatedTONCard`` could not be used.
public enum TONFactoryDataError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The file does not exist or cannot be read.
    case unreadable(path: String, reason: String)
    /// The file is not a JSON object with the four string fields.
    case invalidJSON(path: String, reason: String)
    /// The serial number is not 24 decimal digits.
    case badSerialNumber(String)
    /// A field is not an even-length hex string.
    case badHex(field: String)
    /// A field has the wrong number of bytes.
    case wrongLength(field: String, expected: Int, actual: Int)

    public var description: String {
        switch self {
        case .unreadable(let path, let reason): "cannot read TON factory data \(path): \(reason)"
        case .invalidJSON(let path, let reason): "TON factory data \(path) is not valid JSON: \(reason)"
        case .badSerialNumber: "TON factory data: serialNumber must be 24 decimal digits"
        case .badHex(let field): "TON factory data: \(field) is not a hex string"
        case .wrongLength(let field, let expected, let actual):
            "TON factory data: \(field) must be \(expected) bytes, not \(actual)"
        }
    }
}
