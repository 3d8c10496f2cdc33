import CardFlow
import CardFlowDESFire
import Foundation

/// What the `desfire` commands print with `--json`, one type per answer. Keys come in
/// declaration order (``KeyOrderedJSONEncoder``), which is the order they have always had.
enum DESFireOutput {
    /// `desfire format`.
    struct Formatted: Encodable {
        let formatted = true
    }

    /// `desfire des-to-aes`.
    struct PICCKeyChanged: Encodable {
        let piccKeyType = "AES"
        let version: UInt8
    }

    /// `desfire free-memory`.
    struct FreeMemory: Encodable {
        let freeMemory: Int
    }

    /// `desfire create-app`.
    struct ApplicationCreated: Encodable {
        let aid: String
        let keyCount: Int
        let keyType: String
    }

    /// `desfire create-file`.
    struct FileCreated: Encodable {
        let aid: String
        let file: UInt8
        let size: Int
        let comm: String
    }

    /// `desfire file-settings`: the fields every file has, then those of its kind.
    struct FileSettings: Encodable {
        let file: UInt8
        let settings: DESFireFileSettings

        private enum CodingKeys: String, CodingKey {
            case file, type, comm, access, size, lowerLimit, upperLimit, limitedCreditValue, limitedCreditEnabled
            case recordSize, maxRecords, currentRecords, keyOption, keyVersion, counterLimit
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(file, forKey: .file)
            try container.encode(settings.kind.typeCode, forKey: .type)
            try container.encode("\(settings.commMode)", forKey: .comm)
            try container.encode(
                String(settings.accessRights.rawValue, radix: 16, uppercase: true), forKey: .access)
            switch settings.kind {
            case .standard(let size), .backup(let size):
                try container.encode(size, forKey: .size)
            case .value(let lower, let upper, let limited, let enabled):
                try container.encode(lower, forKey: .lowerLimit)
                try container.encode(upper, forKey: .upperLimit)
                try container.encode(limited, forKey: .limitedCreditValue)
                try container.encode(enabled, forKey: .limitedCreditEnabled)
            case .linearRecord(let size, let max, let current), .cyclicRecord(let size, let max, let current):
                try container.encode(size, forKey: .recordSize)
                try container.encode(max, forKey: .maxRecords)
                try container.encode(current, forKey: .currentRecords)
            case .transactionMAC(let option, let version, let limit):
                try container.encode(option, forKey: .keyOption)
                try container.encode(version, forKey: .keyVersion)
                // Present as null when the file has no limit.
                try container.encode(limit, forKey: .counterLimit)
            }
        }
    }

    /// `desfire read`: the data in hex, and as text too when it is printable UTF-8 once
    /// trailing zero padding is removed.
    struct FileData: Encodable {
        let data: String
        let text: String?

        init(_ bytes: [UInt8]) {
            data = bytes.hexString
            var trimmed = bytes
            while trimmed.last == 0 { trimmed.removeLast() }
            if !trimmed.isEmpty, let text = String(bytes: trimmed, encoding: .utf8),
                text.unicodeScalars.allSatisfy({ $0.value >= 0x20 || $0 == "\n" || $0 == "\t" })
            {
                self.text = text
            } else {
                text = nil
            }
        }
    }

    /// `desfire write`.
    struct Written: Encodable {
        let written: Int
    }

    /// `desfire change-key`.
    struct KeyChanged: Encodable {
        let aid: String
        let keyNo: UInt8
        let keyType: String
        let version: UInt8
    }

    /// `desfire uid`.
    struct UID: Encodable {
        let uid: String
    }

    /// `desfire version`.
    struct Version: Encodable {
        let hardware: String
        let software: String
        let uid: String
        let batch: String
        let week: String
        let year: String
        let storageSize: Int

        init(_ version: DESFireVersion) {
            hardware = version.hardware.hexString
            software = version.software.hexString
            uid = version.uid.hexString
            batch = version.batch.hexString
            week = [version.week].hexString
            year = [version.year].hexString
            storageSize = version.storageSize
        }
    }

    /// `desfire apps`.
    struct Applications: Encodable {
        let applications: [String]
    }

    /// `desfire files`.
    struct Files: Encodable {
        let files: [UInt8]
    }

    /// `desfire provision` when the flow succeeded.
    struct Provisioned: Encodable {
        let ok = true
        let aid: String
        let file: UInt8
        let uid: String
        let data: String
        let events: [EventOutput]
    }
}
