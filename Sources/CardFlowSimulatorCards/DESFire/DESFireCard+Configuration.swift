import CardFlowCrypto

/// SetConfiguration (5C), DESFire EV1: PICC configuration, default key, user-defined ATS.
///
/// Written from the EV1 command definition as libfreefare's `mifare_desfire_set_configuration`,
/// `…_set_default_key` and `…_set_ats` send it: `5C option Enc(data)`, the option byte in clear,
/// the data enciphered with the session key (CRC over `5C option data` in EV1 messaging, over
/// the data in legacy messaging), at the PICC level after PICC master key authentication.
///
/// - Option `00`: one configuration byte; bit 0 disables FormatPICC, bit 1 enables the random
///   ID (irreversible: a later `0` in bit 1 leaves it on). Other bits: `9E`.
/// - Option `01`: the default key (24 bytes, zero-padded) and its version (1 byte), which
///   CreateApplication gives every key of a new application.
/// - Option `02`: the ATS (`TL T0 …`, TL counts itself) followed by its CRC and `80`, then zero
///   padding (libfreefare appends the CRC and the `80` itself).
extension DESFireCard {
    /// Bit 0 of the option-00 configuration byte.
    static let formatDisableBit: UInt8 = 0x01
    /// Bit 1 of the option-00 configuration byte.
    static let randomIDBit: UInt8 = 0x02
    /// Length of the default-key field of option 01 (24 key bytes, zero-padded).
    static let defaultKeyFieldLength = 24
    /// Longest ATS the card accepts (ISO/IEC 14443-4 FSD of the smallest frame, 16 bytes, is
    /// what readers must accept; EV1 takes up to 20).
    static let maximumATSLength = 20

    /// SetConfiguration (5C): `option Enc(data)`.
    mutating func setConfiguration(_ data: [UInt8]) throws(DESFireCardStatus) -> DESFireReply {
        guard let option = data.first else { throw .lengthError }
        guard selectedAID == 0 else { throw .permissionDenied }
        guard let active = session, active.keyNumber == 0 else { throw .authenticationError }
        let protected = Array(data.dropFirst())
        switch option {
        case 0x00:
            let plain = try unwrapConfiguration(option, protected, plainLength: 1)
            try applyPICCConfiguration(plain[0])
        case 0x01:
            let plain = try unwrapConfiguration(option, protected, plainLength: Self.defaultKeyFieldLength + 1)
            defaultKeyData = Array(plain.prefix(Self.defaultKeyFieldLength))
            defaultKeyVersion = plain[Self.defaultKeyFieldLength]
        case 0x02:
            userATS = try unwrapATS(protected)
        default:
            throw .parameterError
        }
        return .ok
    }

    private mutating func applyPICCConfiguration(_ byte: UInt8) throws(DESFireCardStatus) {
        guard byte & ~(Self.formatDisableBit | Self.randomIDBit) == 0 else { throw .parameterError }
        formatDisabled = byte & Self.formatDisableBit != 0
        if byte & Self.randomIDBit != 0, !randomUID {
            // The card was activated with its UID in this field: the random ID answers the
            // anticollision from the next activation on.
            randomUID = true
            currentRandomID = realUID
        }
    }

    /// Options 00 and 01: fixed-length data with the CRC secure messaging adds.
    private mutating func unwrapConfiguration(_ option: UInt8, _ protected: [UInt8], plainLength: Int)
        throws(DESFireCardStatus) -> [UInt8]
    {
        try DESFireSecureMessaging.unwrapCommand(
            header: [0x5C, option], protected: protected, plainLength: plainLength, mode: .enciphered,
            session: &session)
    }

    /// Option 02: the ATS length comes from its first byte; the CRC and the `80` follow it.
    private mutating func unwrapATS(_ protected: [UInt8]) throws(DESFireCardStatus) -> [UInt8] {
        guard var active = session else { throw .authenticationError }
        let ats: [UInt8]
        switch active.mode {
        case .ev2:
            let payload = try DESFireSecureMessaging.unwrapEV2(
                active, ins: 0x5C, [0x02] + protected, headerLength: 1, protection: .full
            ).payload
            ats = payload
        case .ev1:
            let plain = try DESFireSecureMessaging.decipherEV1(protected, session: &active)
            ats = try Self.atsWithTrailer(plain) { ats in DESFireCRC32.bytes([0x5C, 0x02] + ats) }
        case .legacy:
            let plain = try DESFireSecureMessaging.recoverLegacy(protected, session: active)
            ats = try Self.atsWithTrailer(plain) { ats in CRC16A.bytes(ats) }
        }
        guard let length = ats.first, Int(length) == ats.count, (2...Self.maximumATSLength).contains(ats.count) else {
            throw .parameterError
        }
        session = active
        return ats
    }

    /// Splits `TL … CRC 80 00…` and checks the CRC and the padding.
    private static func atsWithTrailer(_ plain: [UInt8], crc: ([UInt8]) -> [UInt8]) throws(DESFireCardStatus)
        -> [UInt8]
    {
        guard let first = plain.first else { throw .lengthError }
        let length = Int(first)
        let crcLength = crc([]).count
        guard length >= 1, plain.count >= length + crcLength + 1 else { throw .lengthError }
        let ats = Array(plain[..<length])
        guard Array(plain[length..<length + crcLength]) == crc(ats), plain[length + crcLength] == 0x80,
            plain[(length + crcLength + 1)...].allSatisfy({ $0 == 0 })
        else { throw .integrityError }
        return ats
    }

    /// The key every slot of a new application of `type` gets: the configured default key (its
    /// first 16 or 24 bytes; AES with the configured version), all zero on a factory card.
    func defaultKey(_ type: DESFireKeyType) -> DESFireKeyEntry {
        DESFireKeyEntry(
            type: type, bytes: Array(defaultKeyData.prefix(type.keyLength)),
            aesVersion: type == .aes ? defaultKeyVersion : 0)
    }
}
