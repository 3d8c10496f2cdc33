import CardFlow

extension DESFireClient {
    /// GetVersion (`60`): hardware, software and production data (3 frames).
    public func getVersion() async throws -> DESFireVersion {
        try DESFireVersion(response: try await exchange(.getVersion))
    }

    /// GetCardUID (`51`): the real 7-byte UID, enciphered; needs a session.
    public func getCardUID() async throws -> [UInt8] {
        guard session != nil else { throw DESFireError.notAuthenticated(command: .getCardUID) }
        return try await exchange(.getCardUID, response: .enciphered(length: 7))
    }

    /// GetFreeMemory (`6E`): free bytes on the card.
    public func getFreeMemory() async throws -> Int {
        let data = try await exchange(.getFreeMemory)
        guard data.count == 3 else {
            throw DESFireError.malformedResponse(command: .getFreeMemory, reason: "expected 3 bytes, got \(data.count)")
        }
        return Int(littleEndianValue(data[...]))
    }

    /// FormatPICC (`FC`): deletes every application; needs the PICC master key session.
    public func formatPICC() async throws {
        _ = try await exchange(.formatPICC)
        fileSettingsCache = [:]
    }

    /// GetApplicationIDs (`6A`), AF-chained when long.
    public func getApplicationIDs() async throws -> [DESFireApplicationID] {
        let data = try await exchange(.getApplicationIDs)
        guard data.count % 3 == 0 else {
            throw DESFireError.malformedResponse(
                command: .getApplicationIDs, reason: "\(data.count) bytes is not a list of 3-byte AIDs")
        }
        return stride(from: 0, to: data.count, by: 3).map { DESFireApplicationID(wire: data[$0..<$0 + 3]) }
    }

    /// SelectApplication (`5A`): always plain; ends any session (§4.8).
    public func selectApplication(_ aid: DESFireApplicationID) async throws {
        session = nil
        fileSettingsCache = [:]
        transactionMACInput = nil
        transactionMACFile = nil
        _ = try await exchange(.selectApplication, data: aid.wire)
        selectedApplication = aid
        lastAuthentication = nil
    }

    /// CreateApplication (`CA`) with `keyCount` keys (0...14) of `keyType`; `settings` is the key settings byte.
    /// With `isoFileID` the application gets an ISO 7816 file ID (KS2 bit 5) and optionally a DF name (1...16 bytes).
    public func createApplication(
        _ aid: DESFireApplicationID, settings: UInt8 = 0x0F, keyCount: Int,
        keyType: DESFireKeyType, isoFileID: UInt16? = nil, dfName: [UInt8] = []
    ) async throws {
        guard (0...14).contains(keyCount) else {
            throw DESFireError.invalidArgument("key count \(keyCount) is outside 0...14")
        }
        guard aid != .picc else { throw DESFireError.invalidArgument("000000 is the PICC level, not an application") }
        guard dfName.count <= 16, dfName.isEmpty || isoFileID != nil else {
            throw DESFireError.invalidArgument("a DF name has 1...16 bytes and needs an ISO file ID")
        }
        var data = aid.wire + [settings, UInt8(keyCount) | keyType.cryptoFlag | (isoFileID == nil ? 0 : 0x20)]
        if let isoFileID { data += littleEndian(UInt32(isoFileID), count: 2) + dfName }
        _ = try await exchange(.createApplication, data: data)
    }

    /// GetDFNames (`6D`): per application its AID, ISO file ID and DF name (one AF frame each).
    public func getDFNames() async throws -> [(aid: DESFireApplicationID, isoFileID: UInt16, dfName: [UInt8])] {
        // The frames are concatenated by the transport, so entries are split by the card's framing here.
        var entries: [(aid: DESFireApplicationID, isoFileID: UInt16, dfName: [UInt8])] = []
        for frame in try await exchangeFrames(.getDFNames) where !frame.isEmpty {
            guard frame.count >= 5 else {
                throw DESFireError.malformedResponse(command: .getDFNames, reason: "entry of \(frame.count) bytes")
            }
            entries.append(
                (DESFireApplicationID(wire: frame[0..<3]), UInt16(frame[3]) | UInt16(frame[4]) << 8, Array(frame[5...]))
            )
        }
        return entries
    }

    /// DeleteApplication (`DA`). Deleting the selected application ends the session.
    public func deleteApplication(_ aid: DESFireApplicationID) async throws {
        let ends = aid == selectedApplication
        _ = try await exchange(.deleteApplication, data: aid.wire, response: ends ? .endsSession : .plain)
        if ends { lastAuthentication = nil }
    }
}
