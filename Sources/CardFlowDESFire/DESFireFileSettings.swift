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
        /// EV2/EV3 TransactionMAC file (type 05): the AppTransactionMACKey's type (TMKeyOption,
        /// `02` for AES) and version, and the TMC limit when one is set (FileOption bit 5).
        case transactionMAC(keyOption: UInt8, keyVersion: UInt8, counterLimit: UInt32?)

        /// The file type byte.
        public var typeCode: UInt8 {
            switch self {
            case .standard: 0x00
            case .backup: 0x01
            case .value: 0x02
            case .linearRecord: 0x03
            case .cyclicRecord: 0x04
            case .transactionMAC: 0x05
            }
        }
    }

    public let kind: Kind
    public let commMode: DESFireCommMode
    public let accessRights: DESFireAccessRights
    /// EV2: the additional access-right pairs (FileOption bit 7); empty on EV1 cards and for files
    /// without them.
    public let additionalAccessRights: [DESFireAccessRights]

    public init(
        kind: Kind, commMode: DESFireCommMode, accessRights: DESFireAccessRights,
        additionalAccessRights: [DESFireAccessRights] = []
    ) {
        self.kind = kind
        self.commMode = commMode
        self.accessRights = accessRights
        self.additionalAccessRights = additionalAccessRights
    }

    init(response answer: [UInt8]) throws(DESFireError) {
        func fail(_ reason: String) -> DESFireError { .malformedResponse(command: .getFileSettings, reason: reason) }
        guard answer.count >= 4 else { throw fail("expected at least 4 bytes, got \(answer.count)") }
        let (bytes, additional) = try Self.splitAdditionalAccessRights(answer)
        additionalAccessRights = additional
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
        case 0x05:
            // MF2DLHX0 GetFileSettings, TransactionMAC file: FileType FileOption AR(2) TMKeyOption
            // TMKeyVersion, then TMCLimit(4) when FileOption bit 5 is set (proxmark3 desfirecore.c
            // DesfirePrintFileSettDynPart; NXP reader library phalMfdfLight GetFileSettings and
            // PHAL_MFDFLIGHT_TMCLIMITCONFIG = 0x20).
            let hasLimit = bytes[1] & Self.transactionMACCounterLimitOption != 0
            guard bytes.count == (hasLimit ? 10 : 6) else {
                throw fail("a TransactionMAC file's settings have \(hasLimit ? 10 : 6) bytes, not \(bytes.count)")
            }
            kind = .transactionMAC(
                keyOption: bytes[4], keyVersion: bytes[5], counterLimit: hasLimit ? value(6, 4) : nil)
        default:
            throw fail("unknown file type \([bytes[0]].hexString)")
        }
    }

    /// FileOption bit 5 of a TransactionMAC file: a TMCLimit follows the key version.
    static let transactionMACCounterLimitOption: UInt8 = 0x20

    /// EV2 GetFileSettings appends `NrAddARs AddAR(2)…` when FileOption (byte 1) has bit 7 set;
    /// returns the EV1 part and the additional pairs.
    /// A TransactionMAC file has no additional access rights (its FileOption bits 4–5 say other things).
    private static func splitAdditionalAccessRights(_ answer: [UInt8]) throws(DESFireError) -> (
        [UInt8], [DESFireAccessRights]
    ) {
        guard answer[1] & 0x80 != 0, answer[0] != 0x05 else { return (answer, []) }
        let coreLength: Int? =
            switch answer[0] {
            case 0x00, 0x01: 7
            case 0x02: 17
            case 0x03, 0x04: 13
            default: nil
            }
        guard let coreLength, answer.count > coreLength else {
            throw .malformedResponse(
                command: .getFileSettings, reason: "FileOption announces additional access rights that are missing")
        }
        let count = Int(answer[coreLength])
        guard answer.count == coreLength + 1 + 2 * count else {
            throw .malformedResponse(
                command: .getFileSettings,
                reason:
                    "\(count) additional access rights need \(coreLength + 1 + 2 * count) bytes, not \(answer.count)")
        }
        let pairs = (0..<count).map { index in
            let offset = coreLength + 1 + 2 * index
            return DESFireAccessRights(rawValue: UInt16(answer[offset]) | UInt16(answer[offset + 1]) << 8)
        }
        return (Array(answer.prefix(coreLength)), pairs)
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
            case .transactionMAC(let option, let version, let limit):
                "TransactionMAC file, key option \([option].hexString) version \(version)"
                    + (limit.map { ", TMC limit \($0)" } ?? "")
            }
        return "\(what), comm \(commMode), access \(accessRights)"
    }
}
