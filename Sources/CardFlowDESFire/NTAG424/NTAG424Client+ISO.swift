import CardFlow

extension NTAG424Client {
    /// ISOSelectFile of one of the application's files by its ISO file ID (`00 A4 00 0C 02 E104`).
    /// Keeps the session: selecting a file inside the application does not end it (AN12196 Table 22).
    public func isoSelectFile(_ file: NTAG424File) async throws {
        let select = try CommandAPDU(cla: 0x00, ins: 0xA4, p1: 0x00, p2: 0x0C, data: file.isoFileID)
        try requireISOSuccess(try await channel.transmit(select), instruction: "ISOSelectFile")
    }

    /// ISOReadBinary (`00 B0`) of the selected file: what a phone reads, and what SDM mirrors
    /// SUN data into. `length` 0 reads to the end of the file (up to 256 bytes).
    ///
    /// ```swift
    /// try await tag.selectNDEFApplication()
    /// try await tag.isoSelectFile(.ndef)
    /// let file = try await tag.isoReadBinary(offset: 0, length: 0)   // NLEN ‖ NDEF message with the SUN URL
    /// ```
    public func isoReadBinary(offset: Int, length: Int) async throws -> [UInt8] {
        guard (0...0x7FFF).contains(offset), (0...256).contains(length) else {
            throw NTAG424Error.invalidArgument("ISOReadBinary offset \(offset) and length \(length) out of range")
        }
        let read = try CommandAPDU(
            cla: 0x00, ins: 0xB0, p1: UInt8(truncatingIfNeeded: offset >> 8),
            p2: UInt8(truncatingIfNeeded: offset), le: length == 0 ? 256 : length)
        let response = try await channel.transmit(read)
        try requireISOSuccess(response, instruction: "ISOReadBinary")
        return response.data
    }

    /// ISOUpdateBinary (`00 D6`) of the selected file, for files whose write access is free.
    public func isoUpdateBinary(offset: Int, data: [UInt8]) async throws {
        guard (0...0x7FFF).contains(offset), (1...255).contains(data.count) else {
            throw NTAG424Error.invalidArgument("ISOUpdateBinary offset \(offset) with \(data.count) bytes out of range")
        }
        let update = try CommandAPDU(
            cla: 0x00, ins: 0xD6, p1: UInt8(truncatingIfNeeded: offset >> 8),
            p2: UInt8(truncatingIfNeeded: offset), data: data)
        try requireISOSuccess(try await channel.transmit(update), instruction: "ISOUpdateBinary")
    }
}
