import CardFlow

extension StorageNDEFTagOpener {
    /// MIFARE Classic 1K, 4K and Mini cards formatted for NDEF (NXP AN1304: the MAD read with the
    /// public MAD key A, the message in the `E1 03` sectors with the public NDEF key A), through
    /// ``ClassicClient``. A card that is not formatted fails at the first read or write with
    /// ``StorageCardError/notNDEFFormatted(_:)``.
    public static let mifareClassic = StorageNDEFTagOpener(
        name: "MIFARE Classic (MAD, NDEF sectors)", claims: { $0?.classicLayout != nil },
        open: { session, variant, logger in
            let card = try await ClassicClient.open(on: session, variant: variant, logger: logger)
            let kind = StorageCardKind(atr: await session.identity.atr)?.description ?? "MIFARE Classic"
            return StorageNDEFTag(
                kind: "\(kind) (MAD, NDEF sectors)", read: { try await madRefusalNamed { try await card.readNDEF() } },
                write: { message in try await madRefusalNamed { try await card.writeNDEF(message) } })
        })
}

/// Runs `body`, reporting a refused authentication of sector 0 (the MAD sector) as a card not
/// formatted for NDEF: that is what it means when the caller asked for NDEF, not a wrong key.
private func madRefusalNamed<T>(_ body: () async throws -> T) async throws -> T {
    do {
        return try await body()
    } catch StorageCardError.authenticationFailed(let block, _, let statusWord, _) where block < 4 {
        throw StorageCardError.notNDEFFormatted(
            "sector 0 (the MAD) does not open with the public MAD key A0A1A2A3A4A5 (\(statusWord)); "
                + "format the card for NDEF first (ClassicClient.formatForNDEF, `cardctl classic ndef format`)")
    }
}
