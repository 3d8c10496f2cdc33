/// Non-volatile memory accounting of the emulated card.
///
/// Only the 32-byte allocation unit and the doubling of backup files are documented; application
/// and key overheads are not public (spec §10 Q6), so this model charges files only.
/// Deleting a file or an application does not return its memory; FormatPICC does.
enum DESFireMemory {
    /// User memory of the emulated EV1 8K card after FormatPICC, in bytes (GetFreeMemory on a
    /// factory card).
    static let capacity = DESFireCard.memoryCapacity
    /// Allocation unit.
    static let blockSize = 32

    /// `byteCount` rounded up to whole blocks, at least one block.
    static func blocks(_ byteCount: Int) -> Int {
        max(1, (byteCount + blockSize - 1) / blockSize) * blockSize
    }
}
