import CardFlow

/// A file's settings as GetFileSettings returns them.
///
/// ```swift
/// let settings = try await client.fileSettings(file: 1)
/// if case .standard(let size) = settings.kind { … }
/// ```
public struct DESFireFileSettings: Hashable, Sendable, CustomStringConvertible {
    /// File type and its type-specific parameters.
    public enum Kind: Hashable, Sendable {
        case standard(size: Int)
        case backup(size: Int)
        case value(lowerLimit: Int32, upperLimit: Int32, limitedCreditValue: Int32, limitedCreditEnabled: Bool)
        case linearRecord(recordSize: Int, maxRecords: Int, currentRecords: Int)
        case cyclicRecord(recordSize: Int, maxRecords: Int, currentRecords: Int)

        /// The file type byte.
        public var typeCode: UInt8 {
            switch self {
            case .standard: 0x00
            case .backup: 0x01
            case .value: 0x02
            case .linearRecord: 0x03
            case .cyclicRecord: 0x04
            }
        }
    }

    public let kind: Kind
    public let commMode: DESFireCommMode
    public let accessRights: DESFireAccessRights

    public init(kind: Kind, commMode: DESFireCommMode, accessRights: DESFireAccessRights) {
        self.kind = kind
        self.commMode = commMode
        self.accessRights = accessRights
    }

    init(response bytes: [UInt8]) throws(DESFireError) {
        func fail(_ reason: String) -> DESFireError { .malformedResponse(command: .getFileSettings, reason: reason) }
        guard bytes.count >= 4 else { throw fail("expected at least 4 bytes, got \(bytes.count)") }
        commMode = DESFireCommMode(settingsByte: bytes[1])
        accessRights = DESFireAccessRights(rawValue: UInt16(bytes[2]) | UInt16(bytes[3]) << 8)
        func value(_ offset: Int, _ count: Int) -> UInt32 { littleEndianValue(bytes[offset..<offset + count]) }
        switch bytes[0] {
        case 0x00, 0x01:
            guard bytes.count == 7 else { throw fail("a data file's settings have 7 bytes, not \(bytes.count)") }
            let size = Int(value(4, 3))
            kind = bytes[0] == 0 ? .standard(size: size) : .backup(size: size)
        case 0x02:
            guard bytes.count == 17 else { throw fail("a value file's settings have 17 bytes, not \(bytes.count)") }
            kind = .value(
                lowerLimit: Int32(bitPattern: value(4, 4)), upperLimit: Int32(bitPattern: value(8, 4)),
                limitedCreditValue: Int32(bitPattern: value(12, 4)), limitedCreditEnabled: bytes[16] & 1 != 0)
        case 0x03, 0x04:
            guard bytes.count == 13 else { throw fail("a record file's settings have 13 bytes, not \(bytes.count)") }
            let (size, max, current) = (Int(value(4, 3)), Int(value(7, 3)), Int(value(10, 3)))
            kind =
                bytes[0] == 3
                ? .linearRecord(recordSize: size, maxRecords: max, currentRecords: current)
                : .cyclicRecord(recordSize: size, maxRecords: max, currentRecords: current)
        default:
            throw fail("unknown file type \([bytes[0]].hexString)")
        }
    }

    public var description: String {
        let what =
            switch kind {
            case .standard(let size): "standard data file, \(size) bytes"
            case .backup(let size): "backup data file, \(size) bytes"
            case .value(let lower, let upper, let limited, let enabled):
                "value file, limits \(lower)...\(upper), limited credit \(limited)\(enabled ? " (enabled)" : "")"
            case .linearRecord(let size, let max, let current):
                "linear record file, \(current)/\(max) records of \(size) bytes"
            case .cyclicRecord(let size, let max, let current):
                "cyclic record file, \(current)/\(max) records of \(size) bytes"
            }
        return "\(what), comm \(commMode), access \(accessRights)"
    }
}
