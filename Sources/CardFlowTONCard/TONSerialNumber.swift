/// The card's 24-digit serial number. On the wire each digit is one byte 0…9 (not ASCII):
/// "504394802433901126813236" ⇔ `05 00 04 03 09 04 08 …`.
///
/// ```swift
/// let serial = try TONSerialNumber("504394802433901126813236")
/// serial.wireBytes    // [5, 0, 4, 3, 9, 4, 8, …]
/// ```
public struct TONSerialNumber: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The 24 decimal digits.
    public let digits: String

    /// - Throws: 30025 (not 24 characters) or 30026 (not all digits).
    public init(_ text: String) throws(TONError) {
        guard text.utf8.count == 24 else { throw .library(code: 30025) }
        guard text.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else { throw .library(code: 30026) }
        digits = text
    }

    /// Reads the card's answer to GET_SERIAL_NUMBER.
    ///
    /// - Throws: 40037 unless it is 24 bytes each 0…9.
    public init(wireBytes: [UInt8]) throws(TONError) {
        guard wireBytes.count == 24, wireBytes.allSatisfy({ $0 <= 9 }) else {
            throw .library(code: 40037)
        }
        digits = String(decoding: wireBytes.map { $0 + 0x30 }, as: UTF8.self)
    }

    /// The 24 digit values as the card stores them.
    public var wireBytes: [UInt8] { digits.utf8.map { $0 - 0x30 } }

    public var description: String { digits }

    public static func < (lhs: TONSerialNumber, rhs: TONSerialNumber) -> Bool { lhs.digits < rhs.digits }
}
