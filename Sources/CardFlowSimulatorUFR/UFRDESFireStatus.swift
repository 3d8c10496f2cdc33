import CardFlowDESFire

/// The DESFire status the reader puts first in the RSP_EXT of an 8x command (ufr.md §5; decisions
/// file item 5), and how a failure of CardFlow's DESFire client becomes one.
enum UFRDESFireStatus {
    /// 3001 CARD_OPERATION_OK (`B9 0B`).
    static let ok: UInt16 = 3001
    /// 3003 KEY_AUTH_ERROR: the authentication step failed.
    static let keyAuthenticationError: UInt16 = 3003
    /// 3004 CARD_CRYPTO_ERROR: a MAC, CMAC or CRC of the card's answer did not verify.
    static let cardCryptoError: UInt16 = 3004
    /// 3005 READER_CARD_COMM_ERROR: the card answered out of protocol, or left mid-transaction.
    static let readerCardCommunicationError: UInt16 = 3005
    /// 3009 NO_ISO1444_4_CARD: the card is not ISO-DEP, or does not answer as a DESFire.
    static let notISODEPCard: UInt16 = 3009
    /// 3010 NOT_SUPPORTED_KEY_TYPE.
    static let notSupportedKeyType: UInt16 = 3010
    /// 0x0C00 | 0x9E: parameter error (the card's PARAMETER_ERROR, or a value the reader refuses).
    static let parameterError: UInt16 = 0x0C9E
    /// 0x0C00 | 0x7E: length error.
    static let lengthError: UInt16 = 0x0C7E
    /// 0x0C00 | 0xAE: authentication error (a command needing a session ran without one).
    static let authenticationError: UInt16 = 0x0CAE

    /// The card error `0x0C00 | status`.
    static func card(_ status: UInt8) -> UInt16 { 0x0C00 | UInt16(status) }

    /// The status of a failure after the authentication step: a card status → `0x0C00 | status`;
    /// not a DESFire answer → 3009; integrity or crypto failure → 3004; an argument the client
    /// refuses before sending → 0x0C9E; a command needing a session without one → 0x0CAE;
    /// anything else (garbled answer, short R-APDU) → 3005.
    static func status(for error: any Error) -> UInt16 {
        guard let error = error as? DESFireError else { return readerCardCommunicationError }
        switch error {
        case .cardStatus(let status, _): return card(status.code)
        case .unexpectedStatusWord: return notISODEPCard
        case .integrityCheckFailed, .crypto: return cardCryptoError
        case .authenticationFailed: return keyAuthenticationError
        case .invalidArgument: return parameterError
        case .notAuthenticated: return authenticationError
        case .malformedResponse, .verificationFailed, .commandCounterExhausted: return readerCardCommunicationError
        }
    }
}
