extension DaemonConfiguration {
    /// The rules `cardd --simulate` runs when no configuration file is given: something useful
    /// for each simulated card kind, and a report for the rest.
    public static var simulationDefault: DaemonConfiguration {
        DaemonConfiguration(readers: [], rules: [
            CardRule(name: "type 4 posters", match: CardMatch(aid: [0xD2, 0x76, 0x00, 0x00, 0x85, 0x01, 0x01]),
                     flow: .ndefWrite(.uri("https://cardflow.example/welcome"))),
            // PC/SC part 3 ATRs: standard 03 (ISO 14443-3 A) with card name 0003 (Ultralight).
            CardRule(name: "type 2 stickers",
                     match: CardMatch(atrPrefix: [0x3B, 0x8F, 0x80, 0x01, 0x80, 0x4F, 0x0C, 0xA0, 0x00, 0x00, 0x03, 0x06, 0x03, 0x00, 0x03]),
                     flow: .ndefWrite(.text("hello from cardd"))),
            // Standard 0B: ISO 15693.
            CardRule(name: "vicinity badges",
                     match: CardMatch(atrPrefix: [0x3B, 0x8F, 0x80, 0x01, 0x80, 0x4F, 0x0C, 0xA0, 0x00, 0x00, 0x03, 0x06, 0x0B]),
                     flow: .iso15693Read(first: 0, count: 4)),
            CardRule(name: "everything else", flow: .report),
        ])
    }
}
