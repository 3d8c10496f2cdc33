import CardFlow

extension NTAG424Client {
    /// GetVersion (`60`): the three frames concatenated (hardware, software, UID and production
    /// data); CommMode.MAC inside a session.
    public func getVersion() async throws -> [UInt8] {
        let answer = try await exchange(.getVersion, mode: .mac)
        guard answer.count == 28 || answer.count == 29 else {
            throw NTAG424Error.malformedResponse(
                instruction: .getVersion,
                reason: "\(answer.count) bytes, not the 28 or 29 of NTAG 424 DNA")
        }
        return answer
    }

    /// GetCardUID (`51`) in CommMode.Full: the real 7-byte UID, also when the tag answers
    /// anti-collision with a random ID (AN12196 Table 28). Needs a session.
    public func getCardUID() async throws -> [UInt8] {
        let uid = try await exchange(.getCardUID, mode: .enciphered, needsSession: true)
        guard uid.count == 7 else {
            throw NTAG424Error.malformedResponse(instruction: .getCardUID, reason: "a UID of \(uid.count) bytes, not 7")
        }
        return uid
    }

    /// GetKeyVersion (`64`) of key `keyNumber`; CommMode.MAC inside a session.
    public func getKeyVersion(_ keyNumber: UInt8) async throws -> UInt8 {
        try checkKeyNumber(keyNumber)
        let answer = try await exchange(.getKeyVersion, header: [keyNumber], mode: .mac)
        guard answer.count == 1 else {
            throw NTAG424Error.malformedResponse(instruction: .getKeyVersion, reason: "\(answer.count) bytes, not 1")
        }
        return answer[0]
    }

    /// Read_Sig (`3C 00`): the 56-byte ECC originality signature over the UID (secp224r1, NXP's
    /// key). CommMode.Full inside a session.
    ///
    /// The signature is returned, not checked: swift-crypto has no secp224r1, the curve NXP signs
    /// with. Check it with NXP's public key where that curve is available.
    public func readSignature() async throws -> [UInt8] {
        let signature = try await exchange(.readSignature, header: [0x00], mode: .enciphered)
        guard signature.count == 56 else {
            throw NTAG424Error.malformedResponse(
                instruction: .readSignature,
                reason: "a signature of \(signature.count) bytes, not 56")
        }
        return signature
    }

    /// ChangeKey (`C4`) in CommMode.Full (AN12196 Tables 25, 26). Changing another key than the
    /// session's needs its current value `oldKey`; changing the session's own key ends the session.
    /// Needs key 0 authenticated.
    public func changeKey(_ keyNumber: UInt8, to newKey: DESFireKey, oldKey: DESFireKey? = nil) async throws {
        try checkKeyNumber(keyNumber)
        guard let current = session else { throw NTAG424Error.notAuthenticated(instruction: .changeKey) }
        session = nil
        let change = try ev2 { () throws(EV2Error) in
            try EV2ChangeKey(keyNumber: keyNumber, newKey: newKey, oldKey: oldKey, session: current)
        }
        let apdu = try ev2 { () throws(EV2Error) in try change.command(in: current) }
        let response = try await channel.transmit(apdu)
        session = try ev2 { () throws(EV2Error) in try change.verifyResponse(response, in: current) }
    }

    /// SetConfiguration (`5C`) in CommMode.Full: one option of the PICC configuration. Needs key 0.
    ///
    /// - Throws: ``NTAG424Error/lrpNotSupported`` for ``NTAG424Configuration/lrpMode`` (nothing is sent).
    public func setConfiguration(_ configuration: NTAG424Configuration) async throws {
        let (option, data) = try configuration.wire()
        _ = try await exchange(.setConfiguration, header: [option], data: data, mode: .enciphered, needsSession: true)
    }
}

/// An option of NTAG 424 DNA's SetConfiguration (NT4H2421Gx §10.5.1).
public enum NTAG424Configuration: Sendable, Hashable {
    /// Option `00`: answer anti-collision with a random ID instead of the UID (permanent once on).
    case randomID
    /// Option `0A`: count failed authentications and disable the key at `limit`, each success
    /// taking `decrement` off.
    case failedAuthenticationCounter(enabled: Bool, limit: UInt16 = 1000, decrement: UInt16 = 10)
    /// Option `05`: switch the tag to LRP secure messaging. Refused (not implemented; permanent).
    case lrpMode

    /// The option byte and its data.
    func wire() throws(NTAG424Error) -> (option: UInt8, data: [UInt8]) {
        switch self {
        case .randomID:
            return (0x00, [0x02])
        case .failedAuthenticationCounter(let enabled, let limit, let decrement):
            guard !enabled || (limit > 0 && decrement <= limit) else {
                throw .invalidArgument("failed-authentication limit \(limit) with decrement \(decrement)")
            }
            return (
                0x0A,
                [
                    enabled ? 0x01 : 0x00, UInt8(truncatingIfNeeded: limit), UInt8(truncatingIfNeeded: limit >> 8),
                    UInt8(truncatingIfNeeded: decrement), UInt8(truncatingIfNeeded: decrement >> 8),
                ]
            )
        case .lrpMode:
            throw .lrpNotSupported
        }
    }
}
