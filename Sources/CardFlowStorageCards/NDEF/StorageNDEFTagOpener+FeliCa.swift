import CardFlow

extension StorageNDEFTagOpener {
    /// FeliCa cards (PC/SC part 3 card name `00 3B`) as NFC Forum Type 3 tags, through
    /// ``FeliCaClient``.
    public static let felicaType3 = StorageNDEFTagOpener(
        name: "FeliCa Type 3", claims: { $0 == .felica },
        open: { session, variant, logger in
            let card = try await FeliCaClient.open(on: session, variant: variant, logger: logger)
            return StorageNDEFTag(
                kind: "FeliCa Type 3",
                read: {
                    let bytes = try await card.readNDEFMessage()
                    try await card.finish()
                    return bytes
                },
                write: { message in
                    try await card.writeNDEFMessage(message)
                    try await card.finish()
                })
        })
}
