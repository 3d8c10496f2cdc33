import CardFlow
import CardFlowDESFire
import CardFlowSimulator
import CardFlowTONCard
import Logging

/// A DESFire session ready for file I/O: a virtual `DESFireCard` (as `sim:desfire`) on a
/// short-APDU reader, formatted, with an AES application holding one data file of
/// `DESFireBench.fileSize` bytes in `commMode`, and the client authenticated with the
/// application's AES key 0 (so the file's comm mode applies).
public enum DESFireBench {
    public static let application = try! DESFireApplicationID(hex: "B0B0B0")
    public static let file: UInt8 = 1
    public static let fileSize = 256

    /// The session stays open: close it when done.
    public static func authenticatedClient(
        commMode: DESFireCommMode = .enciphered,
        timing: TimingModel = .zero
    ) async throws -> (DESFireClient, CardSession) {
        var configuration = VirtualReaderConfiguration.level(.shortAPDU, maxMessageLength: 271)
        configuration.timing = timing
        let virtual = VirtualCCIDReader(configuration: configuration)
        await virtual.insert(DESFireCard(seed: 1))
        let reader = Reader.simulated(virtual, id: "sim:desfire", logger: discardingLogger(level: .info))
        let session = try await reader.connect()
        let client = DESFireClient(channel: session)
        try await client.selectApplication(.picc)
        try await client.authenticate(keyNumber: 0, key: .defaultDES)
        try await client.formatPICC()
        try await client.createApplication(application, settings: 0x0F, keyCount: 1, keyType: .aes)
        try await client.selectApplication(application)
        try await client.authenticate(keyNumber: 0, key: .defaultAES)
        try await client.createDataFile(
            file: file, size: fileSize, commMode: commMode,
            accessRights: DESFireProvisioning.keyZeroOnly)
        try await client.writeData(
            file: file, offset: 0, data: [UInt8](repeating: 0x3C, count: fileSize), commMode: commMode)
        return (client, session)
    }
}

/// A TON wallet session on an activated virtual `TONCard` (as `sim:ton`, factory vector A), PIN
/// verified: the state in which the HMAC-protected sign commands work.
public enum TONBench {
    /// Factory vector A of the virtual card (the activation data printed on the card's envelope).
    static let password =
        "F4B072E1DF2DB7CF6CD0CD681EC5CD2D071458D278E6546763CBB4860F8082FE14418C8A8A55E2106CBC6CB1174F4BA6D827A26A2D205F99B7E00401DA4C15ACC943274B92258114B5E11C16DA64484034F93771547FBE60DA70E273E6BD64F8A4201A9913B386BCA55B6678CFD7E7E68A646A7543E9E439DD5B60B9615079FE"
    static let iv = "1A550F4B413D0E971C28293F9183EA8A"
    static let commonSecret = "7256EFE7A77AFC7E9088266EF27A93CB01CD9432E0DB66D600745D506EE04AC4"
    static let pin = "5555"

    /// Activates a fresh card (TONActivation flow), then opens a session and verifies the PIN.
    /// The session stays open: close it when done.
    public static func verifiedWallet(timing: TimingModel = .zero) async throws -> (TONWallet, CardSession) {
        var configuration = VirtualReaderConfiguration.level(.shortAPDU, maxMessageLength: 271)
        configuration.timing = timing
        let virtual = VirtualCCIDReader(configuration: configuration)
        await virtual.insert(SimulatedTONCard(seed: 7))
        let reader = Reader.simulated(virtual, id: "sim:ton", logger: discardingLogger(level: .info))
        let keys = TONHmacKeyStore(store: InMemoryKeyStore())
        var policy = SessionPolicy()
        policy.identity = TONActivation.cardIdentity
        let activation = try TONActivationData(passwordHex: password, commonSecretHex: commonSecret, ivHex: iv)
        let state = try await reader.run(
            TONActivation.flow(activation: activation, pin: try TONPin(pin), hmacKeys: keys),
            policy: policy
        ).value
        precondition(state == .personalized, "activation ended in \(state)")
        let session = try await reader.connect()
        await session.addRedaction(TONWallet.redaction)
        let wallet = TONWallet(channel: session, hmacKeys: keys)
        try await wallet.verifyPin(try TONPin(pin))
        return (wallet, session)
    }
}
