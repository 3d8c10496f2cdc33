import CardFlow

extension NTAG424Client {
    /// GetFileSettings (`F5`): plain without a session, CommMode.MAC inside one (AN12196 Table 7).
    public func getFileSettings(_ file: NTAG424File) async throws -> NTAG424FileSettings {
        let answer = try await exchange(.getFileSettings, header: [file.rawValue], mode: .mac)
        let settings = try NTAG424FileSettings(getFileSettingsAnswer: answer)
        fileSettingsCache[file] = settings
        return settings
    }

    /// ChangeFileSettings (`5F`) in CommMode.Full: comm mode, access rights and SDM mirroring
    /// (AN12196 Table 18). Needs the file's Change key authenticated.
    ///
    /// - Throws: ``NTAG424Error/invalidArgument(_:)`` for SDM on another file than the NDEF file,
    ///   ``NTAG424Error/notAuthenticated(instruction:)`` without a session.
    public func changeFileSettings(_ file: NTAG424File, to settings: NTAG424FileSettings) async throws {
        if settings.sdm != nil, file != .ndef {
            throw NTAG424Error.invalidArgument("SDM mirroring exists on the NDEF file only, not the \(file)")
        }
        fileSettingsCache[file] = nil
        _ = try await exchange(
            .changeFileSettings, header: [file.rawValue], data: settings.changeFileSettingsData,
            mode: .enciphered, needsSession: true)
    }

    /// ReadData (`AD`) of `length` bytes from `offset` (0 with length 0: to the end of the file),
    /// in the file's comm mode (read with GetFileSettings once and cached) unless `mode` is given.
    /// Reads longer than ``maxDataPerCommand`` are split into several commands.
    public func readData(_ file: NTAG424File, offset: Int = 0, length: Int, mode: DESFireCommMode? = nil) async throws
        -> [UInt8]
    {
        try checkRange(offset: offset, length: length)
        let commMode = try await resolvedMode(mode, for: file)
        guard length > 0 else {
            return try await exchange(
                .readData, header: Self.dataHeader(file, offset: offset, length: 0), mode: commMode)
        }
        var data: [UInt8] = []
        while data.count < length {
            let part = min(maxDataPerCommand, length - data.count)
            let answer = try await exchange(
                .readData, header: Self.dataHeader(file, offset: offset + data.count, length: part),
                mode: commMode)
            guard answer.count == part else {
                throw NTAG424Error.malformedResponse(
                    instruction: .readData,
                    reason: "asked for \(part) bytes, the tag answered \(answer.count)")
            }
            data += answer
        }
        return data
    }

    /// WriteData (`8D`) of `data` at `offset` in the file's comm mode unless `mode` is given
    /// (AN12196 Tables 17, 21). Longer data than ``maxDataPerCommand`` goes in several commands.
    public func writeData(_ file: NTAG424File, offset: Int = 0, data: [UInt8], mode: DESFireCommMode? = nil)
        async throws
    {
        guard !data.isEmpty else { throw NTAG424Error.invalidArgument("WriteData needs at least one byte") }
        try checkRange(offset: offset, length: data.count)
        let commMode = try await resolvedMode(mode, for: file)
        var written = 0
        while written < data.count {
            let part = Array(data[written..<min(data.count, written + maxDataPerCommand)])
            _ = try await exchange(
                .writeData, header: Self.dataHeader(file, offset: offset + written, length: part.count),
                data: part, mode: commMode)
            written += part.count
        }
    }

    /// GetFileCounters (`F6`) in CommMode.Full: the NDEF file's SDMReadCtr (needs the SDMCtrRet
    /// key authenticated, unless it is free).
    public func getFileCounters(_ file: NTAG424File = .ndef) async throws -> UInt32 {
        let answer = try await exchange(.getFileCounters, header: [file.rawValue], mode: .enciphered)
        guard answer.count == 5 else {
            throw NTAG424Error.malformedResponse(
                instruction: .getFileCounters,
                reason: "\(answer.count) bytes, not SDMReadCtr (3) and 2 reserved")
        }
        return UInt32(answer[0]) | UInt32(answer[1]) << 8 | UInt32(answer[2]) << 16
    }

    /// `FileNo ‖ Offset (3, LSB first) ‖ Length (3, LSB first)`.
    static func dataHeader(_ file: NTAG424File, offset: Int, length: Int) -> [UInt8] {
        [file.rawValue] + littleEndian24(offset) + littleEndian24(length)
    }

    /// Three bytes, least significant first (callers keep values below 2^24).
    static func littleEndian24(_ value: Int) -> [UInt8] {
        [
            UInt8(truncatingIfNeeded: value), UInt8(truncatingIfNeeded: value >> 8),
            UInt8(truncatingIfNeeded: value >> 16),
        ]
    }

    private func checkRange(offset: Int, length: Int) throws(NTAG424Error) {
        guard offset >= 0, length >= 0, offset + length <= 0xFF_FFFF else {
            throw .invalidArgument("offset \(offset) and length \(length) do not fit 24 bits")
        }
    }

    /// The mode the caller gave, or the file's (asked once, cached; plain without a session).
    private func resolvedMode(_ mode: DESFireCommMode?, for file: NTAG424File) async throws -> DESFireCommMode {
        if let mode { return mode }
        guard session != nil else { return .plain }
        if let cached = fileSettingsCache[file] { return cached.commMode }
        return try await getFileSettings(file).commMode
    }
}
