import CardFlow
import CardFlowTONCard

/// A card channel that answers from a script and records every command, failing the exchange
/// when a command differs from the expected one.
actor ScriptedChannel: CardChannel {
    struct Step {
        /// Expected command bytes (hex), or nil to accept any command (protected ones built at run time).
        let command: String?
        let response: String
    }

    private var script: [Step]
    private(set) var sent: [CommandAPDU] = []

    init(_ script: [(String?, String)]) {
        self.script = script.map { Step(command: $0.0, response: $0.1) }
    }

    struct Mismatch: Error, CustomStringConvertible {
        let description: String
    }

    func transmit(_ command: CommandAPDU) async throws -> ResponseAPDU {
        sent.append(command)
        guard !script.isEmpty else { throw Mismatch(description: "unexpected command \(command.encoded().hexString)") }
        let step = script.removeFirst()
        if let expected = step.command {
            let wanted = try [UInt8](hex: expected)
            guard wanted == command.encoded() else {
                throw Mismatch(description: "expected \(wanted.hexString) got \(command.encoded().hexString)")
            }
        }
        return try ResponseAPDU(hex: step.response)
    }

    var remaining: Int { script.count }
    var sentHex: [String] { sent.map { $0.encoded().hexString } }
}

/// Vector A of the reference (section 8.1).
enum VectorA {
    static let serial = "504394802433901126813236"
    static let serialWire = "050004030904080002040303090001010206080103020306"
    static let password =
        "F4B072E1DF2DB7CF6CD0CD681EC5CD2D071458D278E6546763CBB4860F8082FE14418C8A8A55E2106CBC6CB1174F4BA6D827A26A2D205F99B7E00401DA4C15ACC943274B92258114B5E11C16DA64484034F93771547FBE60DA70E273E6BD64F8A4201A9913B386BCA55B6678CFD7E7E68A646A7543E9E439DD5B60B9615079FE"
    static let iv = "1A550F4B413D0E971C28293F9183EA8A"
    static let commonSecret = "7256EFE7A77AFC7E9088266EF27A93CB01CD9432E0DB66D600745D506EE04AC4"
    static let h1 = "6F83BBEF900614F609DDBBB0CC014CC1ED19A30A40E5E171C5734901B8047705"
    static let b1 =
        "7BF6D157F017189AE9904959878A851376BE01127582D675004790CFC194E6AC273D85F55B7050B08FC48F3142AA68974B9765D0799BB5804F6FD4A4BF38686D8E1AE548E60603D32DD85C57DADB146CDE4CFD30D0321DCD5A2B8010760E70A93E429FBC2A458FE84B63B35DB9902893E2C81CD53A2AA20E268A57D188F93D69"
    static let h2 = "112716D2053C2828DC265B5DF14F85F203F8350DCB5774950901F3136108FA2C"
    static let ecs = "71E872C73979904C17722CB2A5FA6B7A107DBA38924338F739A1C0E96D74BC33"
    static let h3 = "71106ED2161D12E5E59FA7FF298930F0F4BB398171A712CB26D947A0DAF5F0EF"
    static let hmacKey = "903BB7913C2332455B97606381BB0CDE09E91EAD137F2CAFF4F6ACC7E0D2E318"
    static let spoiledH3 = "71106ED2161D12E5E59FA7FF298930F0F4BB398171A712CB26D947A0DAF5F022"
    static let spoiledH2 = "112716D2053C2828DC265B5DF14F85F203F8350DCB5774950901F3136108FABD"
    static let recordedSault = "EA579CD62F072B82DA55E9C780FCD0610F88F3FA1DD0858FEC1BB55D01A88473"
    static let recordedVerifyPin5558 =
        "B0A2000044" + "35353538" + recordedSault
        + "8A94113A2D8852AB7B18FFCB9424B66F952A665BF737BEB79F216EEFC3A2EE37"

    static func activation() throws -> TONActivationData {
        try TONActivationData(passwordHex: password, commonSecretHex: commonSecret, ivHex: iv)
    }

    /// A key store holding K for vector A's serial, made current.
    static func keys() async throws -> TONHmacKeyStore {
        let keys = TONHmacKeyStore(store: InMemoryKeyStore())
        try await keys.createKey(from: try activation(), serialNumber: try TONSerialNumber(serial))
        return keys
    }
}
