/// The CoinManager (GlobalPlatform ISD) commands, `80 CB 80 00` with a `DF FF` (get) or
/// `DF FE` (set/do) tagged data field (spec §2.4).
extension SimulatedTONCard {
    /// GET_APPLET_LIST answer: the TON applet instance AID in a `4F` TLV.
    static let appletList: [UInt8] = [0x4F, 0x0D] + tonAppletInstanceAID
    /// GET_SE_VERSION answer.
    static let seVersion: [UInt8] = [0x10, 0x08]
    /// GET_ROOT_KEY_STATUS first byte with a seed; without one the model answers `A5`.
    static let rootKeyPresent: UInt8 = 0x5A
    static let rootKeyAbsent: UInt8 = 0xA5

    /// Dispatches a command to the selected CoinManager. `Le` is not checked (clients send
    /// `00` or nothing). Errors: class ≠ `80` `6E 00`, INS ≠ `CB` `6D 00`, P1 P2 ≠ `80 00`
    /// `6A 86`, a malformed or unknown data field `6A 80`.
    mutating func coinManager(_ apdu: ISO7816CommandAPDU) -> [UInt8] {
        guard apdu.cla == 0x80 else { return TONResponse.status(TONStatus.claNotSupported) }
        guard apdu.ins == 0xCB else { return TONResponse.status(TONStatus.insNotSupported) }
        guard apdu.p1 == 0x80, apdu.p2 == 0x00 else { return TONResponse.status(TONStatus.incorrectP1P2) }
        let data = apdu.data
        guard data.count >= 5, data[0] == 0xDF, data[1] == 0xFF || data[1] == 0xFE,
            Int(data[2]) == data.count - 3
        else { return TONResponse.status(TONStatus.wrongData) }
        let body = Array(data[3...])
        do throws(StatusWord) {
            return TONResponse.data(try coinManagerCommand(getter: data[1] == 0xFF, body: body))
        } catch {
            return TONResponse.status(error.value)
        }
    }

    private mutating func coinManagerCommand(getter: Bool, body: [UInt8]) throws(StatusWord) -> [UInt8] {
        switch (getter, body.first, body.count >= 2 ? body[1] : nil) {
        case (true, 0x81, 0x01) where body.count == 2: return csn
        case (true, 0x81, 0x02) where body.count == 2: return [UInt8(clamping: pinTriesRemaining)]
        case (true, 0x81, 0x03) where body.count == 2: return [UInt8(Self.maxPINTries)]
        case (true, 0x81, 0x04) where body.count == 2: return deviceLabel
        case (true, 0x81, 0x05) where body.count == 2: return [hasSeed ? Self.rootKeyPresent : Self.rootKeyAbsent]
        case (true, 0x81, 0x06) where body.count == 2: return Self.appletList
        case (true, 0x81, 0x09) where body.count == 2: return Self.seVersion
        case (_, 0x81, 0x46) where body.count == 2:
            // Both encodings clients use (DFFF Swift/doc, DFFE Android). Opaque on real cards;
            // the model answers free persistent and transient memory, 2 bytes each.
            return [0x7F, 0xFF, 0x08, 0x00]
        case (false, 0x82, 0x05) where body.count == 2:
            resetWallet()
            return []
        case (false, 0x82, 0x03) where body.count == 8 && body[2] == 0x05 && body[3] == 0x04:
            try generateSeed(pin: Array(body[4...]))
            return []
        case (false, 0x82, 0x04) where body.count == 13 && body[2] == 0x0A && body[3] == 0x04 && body[8] == 0x04:
            try changePIN(old: Array(body[4..<8]), new: Array(body[9..<13]))
            return []
        case (false, 0x81, 0x04) where body.count == 35 && body[2] == 0x20:
            deviceLabel = Array(body[3...])
            return []
        default:
            throw StatusWord(TONStatus.wrongData)
        }
    }

    /// RESET_WALLET: erases the seed, PIN back to `5555` with all tries. Applet data
    /// (keychain, recovery data, counters) is untouched.
    private mutating func resetWallet() {
        rootSeed = nil
        pin = Self.defaultPIN
        pinTriesRemaining = Self.maxPINTries
        pinVerified = false
    }

    /// GENERATE_SEED: `9B 02` when a seed exists, `9B 01` for a wrong PIN (a try is lost).
    private mutating func generateSeed(pin candidate: [UInt8]) throws(StatusWord) {
        guard rootSeed == nil else { throw StatusWord(TONStatus.coinManagerStatusNotSupported) }
        guard coinManagerVerifyPIN(candidate) else { throw StatusWord(TONStatus.coinManagerWrongPIN) }
        rootSeed = randomBytes(64)
    }

    /// CHANGE_PIN: `9B 01` for a wrong old PIN (a try is lost), `9B 02` when the new PIN is
    /// not 4 ASCII digits.
    private mutating func changePIN(old: [UInt8], new: [UInt8]) throws(StatusWord) {
        guard coinManagerVerifyPIN(old) else { throw StatusWord(TONStatus.coinManagerWrongPIN) }
        guard new.count == 4, new.allSatisfy({ (0x30...0x39).contains($0) }) else {
            throw StatusWord(TONStatus.coinManagerStatusNotSupported)
        }
        pin = new
    }
}
