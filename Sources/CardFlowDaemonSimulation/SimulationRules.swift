import CardFlow
import CardFlowDaemon
import CardFlowDaemonFlows
import CardFlowSimulator
import CardFlowTONCard

extension DaemonConfiguration {
    /// The key store `cardd --simulate` uses without a configuration: slot 1 holds a demo AES key,
    /// and `ton.activation.<serial>` the simulated TON cards' activation data (not secrets: they
    /// exist only for the simulated cards).
    public static func simulationKeys() async throws -> InMemoryKeyStore {
        let keys = InMemoryKeyStore()
        let demo: [UInt8] = [
            0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88, 0x99, 0xAA, 0xBB, 0xCC, 0xDD, 0xEE, 0xFF,
        ]
        try await keys.setKey(try StoredKey(algorithm: .aes128, bytes: demo, version: 1), in: try KeySlot(1))
        let ton = TONFactoryData.vectorA
        let activation = try TONActivationData(
            passwordHex: ton.password, commonSecretHex: ton.commonSecret, ivHex: ton.iv)
        try await keys.setSecret(try SecretBytes(activation.packed), named: "ton.activation.\(ton.serialNumber)")
        return keys
    }

    /// The rules `cardd --simulate` runs when no configuration file is given: something useful
    /// for each simulated card kind, and a report for the rest.
    public static var simulationDefault: DaemonConfiguration {
        DaemonConfiguration(
            readers: [],
            rules: [
                // DESFire EV1 answers ISO SELECT of its PICC-level DF name; key 0 of the new
                // application comes from key-store slot 1 (``simulationKeys()``).
                CardRule(
                    name: "desfire badges", match: CardMatch(aid: [0xD2, 0x76, 0x00, 0x00, 0x85, 0x01, 0x00]),
                    flow: .desfireProvision(
                        DESFireProvisioningRule(
                            aid: [0x01, 0x02, 0x03], file: 1, size: 32, comm: "enc",
                            keySlot: 1, data: Array("issued by cardd".utf8)))),
                CardRule(
                    name: "type 4 posters", match: CardMatch(aid: [0xD2, 0x76, 0x00, 0x00, 0x85, 0x01, 0x01]),
                    flow: .ndefWrite(.uri("https://cardflow.example/welcome"))),
                // PC/SC part 3 ATRs: standard 03 (ISO 14443-3 A) with card name 0003 (Ultralight).
                CardRule(
                    name: "type 2 stickers",
                    match: CardMatch(atrPrefix: [
                        0x3B, 0x8F, 0x80, 0x01, 0x80, 0x4F, 0x0C, 0xA0, 0x00, 0x00, 0x03, 0x06, 0x03, 0x00, 0x03,
                    ]),
                    flow: .ndefWrite(.text("hello from cardd"))),
                // Standard 0B: ISO 15693.
                CardRule(
                    name: "vicinity badges",
                    match: CardMatch(atrPrefix: [
                        0x3B, 0x8F, 0x80, 0x01, 0x80, 0x4F, 0x0C, 0xA0, 0x00, 0x00, 0x03, 0x06, 0x0B,
                    ]),
                    flow: .iso15693Read(first: 0, count: 4)),
                // TON Labs security cards answer SELECT of their CoinManager in every state; the
                // activation data is looked up by the serial the card reveals once it has a seed.
                CardRule(
                    name: "ton wallets", match: CardMatch(aid: TONCommands.coinManagerAID),
                    flow: .tonActivate(TONActivationRule(activationSecret: "ton.activation.{serial}"))),
                CardRule(name: "everything else", flow: .report),
            ])
    }
}
