import CardFlow
import CardFlowDESFire
#if canImport(FuzzSupport)
import FuzzSupport
#endif

/// What an NTAG 424 DNA's outside brings: SUN messages from URLs anyone can forge, and the
/// tag's GetFileSettings answers.
enum NTAG424Fuzzing {
    /// SDMMetaReadKey and SDMFileReadKey of AN12196's examples (16 × 00): seeds from the note pass
    /// the MAC check and reach the file-data decipherment.
    static let verifier = try! NTAG424SUNVerifier(
        metaReadKey: [UInt8](repeating: 0, count: 16),
        fileReadKey: [UInt8](repeating: 0, count: 16))

    /// Input: mode byte (bit 0: plain mirror instead of enciphered PICCData), SDMENCFileData
    /// length in blocks (0…2), then PICCData (16) or UID (7) and counter (3), the file data, the
    /// MAC (8), and the MAC input (the rest).
    static func sunMessage(_ bytes: [UInt8]) {
        var input = FuzzInput(bytes)
        let plain = input.byte() & 1 == 1
        let encBlocks = Int(input.byte() % 3)
        let picc = plain ? [] : input.take(16)
        let uid = plain ? input.take(7) : []
        let counterBytes = plain ? input.take(3) : []
        let enc = encBlocks == 0 ? nil : input.take(16 * encBlocks)
        let mac = input.take(8)
        let macInput = input.rest()
        func verify(_ mac: [UInt8]) throws(NTAG424SUNError) -> NTAG424SUNMessage {
            if plain {
                let counter =
                    counterBytes.count == 3
                    ? UInt32(counterBytes[0]) << 16 | UInt32(counterBytes[1]) << 8 | UInt32(counterBytes[2]) : nil
                return try verifier.verify(
                    uid: uid.count == 7 ? uid : nil, readCounter: counter, encFileData: enc,
                    mac: mac, macInput: macInput)
            }
            return try verifier.verify(piccData: picc, encFileData: enc, mac: mac, macInput: macInput)
        }
        guard let message = try? verify(mac) else { return }
        // Accepted: the fields are what the tag can mirror, and one flipped MAC bit is refused.
        fuzzCheck(message.uid.map { $0.count == 7 } ?? true, "a UID of \(message.uid?.count ?? 0) bytes accepted")
        fuzzCheck((message.readCounter ?? 0) <= 0xFF_FFFF, "a counter beyond 24 bits accepted")
        fuzzCheck(message.fileData?.count == enc?.count, "file data of another length than its cryptogram")
        var forged = mac
        forged[0] ^= 0x01
        do {
            _ = try verify(forged)
            fuzzCheck(false, "a message with a flipped MAC bit verified")
        } catch {
            fuzzCheck(error == .macMismatch, "a flipped MAC bit gave \(error), not a MAC mismatch")
        }
    }

    /// A GetFileSettings answer: parsed, and what parses encodes back to the same bytes.
    static func fileSettings(_ bytes: [UInt8]) {
        guard let settings = try? NTAG424FileSettings(getFileSettingsAnswer: bytes) else { return }
        // FileType, then FileOption and AccessRights, FileSize, then the SDM part as sent.
        let expected = Array(bytes[1...3]) + Array(bytes[7...])
        var normalised = expected
        if bytes.count > 8, settings.sdm != nil {
            // SDMAccessRights' RFU nibble is sent as F whatever the tag answered.
            normalised[4] |= 0xF0
        }
        fuzzCheck(
            settings.changeFileSettingsData == normalised,
            "settings \(settings) encode to \(settings.changeFileSettingsData.hexString), read from \(bytes.hexString)")
    }
}
