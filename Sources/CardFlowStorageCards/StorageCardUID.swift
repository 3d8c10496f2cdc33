import CardFlow

/// The card's identifier as the reader reports it, by PC/SC part 3 GET DATA (`FF CA 00 00 00`):
/// the UID of a MIFARE or NTAG card (4, 7 or 10 bytes), the IDm of a FeliCa card (8 bytes).
///
/// ```swift
/// let uid = try await StorageCardUID.read(from: session)
/// ```
public enum StorageCardUID {
    /// Reads the identifier.
    ///
    /// - Throws: ``StorageCardError/commandFailed(instruction:statusWord:likelyCause:)`` when the
    ///   reader answers GET DATA with an error; the channel's errors as they are.
    public static func read(from channel: any CardChannel) async throws -> [UInt8] {
        let command = try PCSCStorageCommand.getUID()
        let response = try await channel.transmit(command)
        guard response.statusWord.isSuccess else {
            throw StorageCardError.commandFailed(
                instruction: command.ins, statusWord: response.statusWord, likelyCause: nil)
        }
        return response.data
    }
}
