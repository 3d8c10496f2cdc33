import CardFlow

/// SELECT by AID, handled as the JavaCard runtime / GlobalPlatform card manager does.
extension SimulatedTONCard {
    /// The CoinManager's FCI, as recorded from a real card (spec §2.4).
    static let coinManagerFCI: [UInt8] =
        (try? [UInt8](
            hex:
                "6F5C8408A000000151000000A550734A06072A864886FC6B01600C060A2A864886FC6B02020101630906072A864886FC6B03"
                + "640B06092A864886FC6B040255650B06092B8510864864020103660C060A2B060104012A026E01029F6501FF")) ?? []

    /// Answers a `00 A4` command, or returns `nil` when the runtime forwards it to the
    /// selected applet (then the applet sees a non-selecting SELECT).
    mutating func select(_ apdu: ISO7816CommandAPDU) -> [UInt8]? {
        if apdu.p1 == 0x04 {
            let name = apdu.data
            if (5...16).contains(name.count), Self.tonAppletInstanceAID.starts(with: name) {
                selection = .tonApplet
                // The applet's process() sets the Ed25519 curve through the CoinManager on
                // SELECT, which fails without a seed; the applet stays selected.
                return TONResponse.status(rootSeed == nil ? TONStatus.setCurveFailed : TONStatus.success)
            }
            if name.isEmpty || name == Self.coinManagerAID {
                selection = .coinManager
                return TONResponse.data(Self.coinManagerFCI)
            }
        }
        switch selection {
        case .tonApplet:
            return nil
        case .coinManager, .none:
            return TONResponse.status(apdu.p1 == 0x04 ? TONStatus.fileNotFound : TONStatus.incorrectP1P2)
        }
    }

    /// The TON applet's `process()`: class, state gating, then the instruction handler.
    mutating func tonApplet(_ apdu: ISO7816CommandAPDU) -> [UInt8] {
        if apdu.cla == 0x00, apdu.ins == 0xA4 {
            return TONResponse.status(TONStatus.success) // a SELECT that selects nothing: no-op
        }
        guard apdu.cla == 0xB0 else { return TONResponse.status(TONStatus.claNotSupported) }
        guard appletState.acceptedInstructions.contains(apdu.ins) else {
            return TONResponse.status(TONStatus.insNotSupported)
        }
        do throws(StatusWord) {
            return TONResponse.data(try dispatch(apdu))
        } catch {
            return TONResponse.status(error.value)
        }
    }

    private mutating func dispatch(_ apdu: ISO7816CommandAPDU) throws(StatusWord) -> [UInt8] {
        switch apdu.ins {
        case 0xC1: return try getAppInfo(apdu)
        case 0xC2: return try getSerialNumber(apdu)
        case 0x96: try setSerialNumber(apdu)
        case 0x91: try setEncryptedPassword(apdu)
        case 0x94: try setEncryptedCommonSecret(apdu)
        case 0x90: try finishPersonalisation(apdu)
        case 0x93: return try getHashOfEncryptedPassword(apdu)
        case 0x95: return try getHashOfEncryptedCommonSecret(apdu)
        case 0x92: try verifyPassword(apdu)
        case 0xBD: return try getSault(apdu)
        case 0xA2: try verifyPIN(apdu)
        case 0xA7: return try getPublicKeyForDefaultPath(apdu)
        case 0xA0: return try getPublicKey(apdu)
        case 0xA5: return try signWithDefaultPath(apdu)
        case 0xA3: return try sign(apdu)
        case 0xB3: try checkAvailableVolume(apdu)
        case 0xB4: return try addKeyChunk(apdu)
        case 0xB5: try initiateChangeOfKey(apdu)
        case 0xB6: return try changeKeyChunk(apdu)
        case 0xB7: return try initiateDeleteKey(apdu)
        case 0xB1: return try getKeyIndexAndLength(apdu)
        case 0xB2: return try getKeyChunk(apdu)
        case 0xB0: try checkKeyHMACConsistency(apdu)
        case 0xBB: return try getHMAC(apdu)
        case 0xB8: return try getNumberOfKeys(apdu)
        case 0xB9: return try getFreeStorageSize(apdu)
        case 0xBA: return try getOccupiedStorageSize(apdu)
        case 0xBC: try resetKeychain(apdu)
        case 0xBE: return try deleteKeyChunk(apdu)
        case 0xBF: return try deleteKeyRecord(apdu)
        case 0xE1, 0xE2, 0xE3, 0xE4: return try getDeleteCounter(apdu)
        case 0xD1: try addRecoveryDataPart(apdu)
        case 0xD2: return try getRecoveryDataPart(apdu)
        case 0xD3: return try getRecoveryDataHash(apdu)
        case 0xD4: return try getRecoveryDataLength(apdu)
        case 0xD5: try resetRecoveryData(apdu)
        case 0xD6: return try isRecoveryDataSet(apdu)
        default: throw StatusWord(TONStatus.insNotSupported)
        }
        return []
    }
}
