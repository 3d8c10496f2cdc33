/// The life-cycle state of the TonWalletApplet, as GET_APP_INFO (`B0 C1`) returns it.
public enum SimulatedTONAppletState: UInt8, Codable, Sendable, Hashable, CaseIterable {
    /// Installed, not personalised: the factory sets B1, ECS and the serial number.
    case installed = 0x07
    /// Personalised at the factory; waits for VERIFY_PASSWORD (two-factor activation).
    case waitingAuthentication = 0x27
    /// Activated: PIN, signing, keychain and recovery data are available.
    case personalized = 0x17
    /// A keychain deletion was initiated and must be finished (DELETE_KEY_CHUNK / _RECORD).
    case deletingKey = 0x37
    /// Terminal: 20 wrong activation passwords or 20 consecutive HMAC failures.
    case blocked = 0x47

    /// The instructions the applet accepts in this state (spec §2.2); any other gives `6D 00`.
    public var acceptedInstructions: Set<UInt8> {
        switch self {
        case .installed: [0xC1, 0x91, 0x93, 0x94, 0x95, 0x96, 0xC2, 0x90]
        case .waitingAuthentication: [0xC1, 0x93, 0x95, 0xC2, 0x92]
        case .personalized:
            [
                0xB1, 0xB2, 0xB3, 0xB4, 0xB5, 0xB6, 0xB7, 0xB8, 0xB9, 0xBA, 0xBB, 0xBC, 0xB0, 0xBD,
                0xA0, 0xA7, 0xA3, 0xA5, 0xA2, 0xD1, 0xD2, 0xD3, 0xD4, 0xD5, 0xD6, 0xC2, 0xC1,
            ]
        case .deletingKey:
            [
                0xB1, 0xB2, 0xE3, 0xE4, 0xE1, 0xE2, 0xBE, 0xBF, 0xB8, 0xB9, 0xBA, 0xBB, 0xBC, 0xB0, 0xBD,
                0xA0, 0xA7, 0xA3, 0xA5, 0xA2, 0xD1, 0xD2, 0xD3, 0xD4, 0xD5, 0xD6, 0xC2, 0xC1,
            ]
        case .blocked: [0xC1, 0xC2]
        }
    }
}
