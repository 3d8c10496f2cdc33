/// Byte rotations used by DESFire authentication (`RndB' = rol(RndB)`, `RndA' = rol(RndA)`).
public enum ByteRotation {
    /// Rotates left by one byte: `01 02 … 08` → `02 … 08 01`. Empty input is returned unchanged.
    public static func rotatedLeft(_ bytes: [UInt8]) -> [UInt8] {
        guard let first = bytes.first else { return bytes }
        return Array(bytes.dropFirst()) + [first]
    }

    /// Rotates right by one byte (the inverse of ``rotatedLeft(_:)``).
    public static func rotatedRight(_ bytes: [UInt8]) -> [UInt8] {
        guard let last = bytes.last else { return bytes }
        return [last] + bytes.dropLast()
    }
}
