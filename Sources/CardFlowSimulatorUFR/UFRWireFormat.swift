/// The uFR COM byte layout as ufr.md §2 gives it, written for the simulator on its own (it
/// shares nothing with the backend's codec, so a codec bug cannot hide behind it).
enum UFRWireFormat {
    static let commandHeader: UInt8 = 0x55
    static let commandTrailer: UInt8 = 0xAA

    /// XOR of the bytes, plus 7 (ufr.md §2.2).
    static func checksum(_ bytes: some Sequence<UInt8>) -> UInt8 {
        var value: UInt8 = 0
        for byte in bytes { value ^= byte }
        return value &+ 7
    }

    /// `AC code CA` + the command's bytes 3…5 echoed (ufr.md §2.3: the simulator echoes).
    static func acknowledgement(_ packet: [UInt8]) -> [UInt8] {
        withChecksum([0xAC, packet[1], 0xCA, packet[3], packet[4], packet[5]])
    }

    /// `DE code ED len val0 val1 cks` + EXT data and checksum; BUFFER_OVERFLOW (05) when the data
    /// do not fit the one length byte (254 bytes and the checksum).
    static func response(code: UInt8, value0: UInt8 = 0, value1: UInt8 = 0, ext: [UInt8] = []) -> [UInt8] {
        guard let length = ext.isEmpty ? 0 : UInt8(exactly: ext.count + 1) else { return error(0x05) }
        return withChecksum([0xDE, code, 0xED, length, value0, value1]) + (ext.isEmpty ? [] : ext + [checksum(ext)])
    }

    /// `EC error CE 00 00 00 cks`.
    static func error(_ code: UInt8) -> [UInt8] {
        withChecksum([0xEC, code, 0xCE, 0x00, 0x00, 0x00])
    }

    static func withChecksum(_ bytes: [UInt8]) -> [UInt8] {
        bytes + [checksum(bytes)]
    }
}

extension UFRWireFormat {
    /// The streamed reply of DESFIRE_READ_FROM_STD_FILE (ufr.md §2.3): the data in chunks
    /// `00 n <n bytes>`, n 1…`chunkSize` (clamped to 1…255), no checksum per chunk; empty data
    /// give no chunk.
    static func streamedChunks(_ data: [UInt8], chunkSize: Int) -> [UInt8] {
        let size = min(max(chunkSize, 1), 255)
        var bytes: [UInt8] = []
        var start = 0
        while start < data.count {
            let chunk = data[start..<min(start + size, data.count)]
            bytes += [0x00, UInt8(truncatingIfNeeded: chunk.count)] + chunk
            start += size
        }
        return bytes
    }
}
