import CardFlow

/// GetVersion's answer: hardware, software, UID and production data.
public struct DESFireVersion: Hashable, Sendable, CustomStringConvertible {
    /// Vendor, type, subtype, major, minor, storage size, protocol (7 bytes).
    public let hardware: [UInt8]
    /// Vendor, type, subtype, major, minor, storage size, protocol (7 bytes).
    public let software: [UInt8]
    public let uid: [UInt8]
    public let batch: [UInt8]
    /// Production week and year (BCD).
    public let week: UInt8
    public let year: UInt8

    init(response bytes: [UInt8]) throws(DESFireError) {
        guard bytes.count == 28 else {
            throw .malformedResponse(
                command: .getVersion, reason: "expected 28 bytes over 3 frames, got \(bytes.count)")
        }
        hardware = Array(bytes[0..<7])
        software = Array(bytes[7..<14])
        uid = Array(bytes[14..<21])
        batch = Array(bytes[21..<26])
        week = bytes[26]
        year = bytes[27]
    }

    /// Storage size in bytes from the hardware storage byte (2^n; bit 0 set means between 2^n and 2^(n+1)).
    public var storageSize: Int { 1 << Int(hardware[5] >> 1) }

    /// For example `"EV1 (HW 1.0), 8192 bytes, UID 04063F72633480"`.
    public var description: String {
        let family =
            switch (hardware[3], hardware[4]) {
            case (0x00, _): "MF3ICD40"
            case (0x01, _): "EV1"
            case (0x12, _): "EV2"
            case (0x22, _): "EV2 XL"
            case (0x33, _): "EV3"
            default: "unknown"
            }
        return
            "\(family) (HW \(hardware[3]).\(hardware[4]), SW \(software[3]).\(software[4])), \(storageSize) bytes, UID \(uid.hexString)"
    }
}
