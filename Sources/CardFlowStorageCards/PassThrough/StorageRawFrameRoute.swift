import CardFlow

/// How a reader family carries a raw card frame (an NTAG `1B` PWD_AUTH, a FeliCa command…) to a
/// card without ISO/IEC 14443-4, and how it brings the card's raw answer back.
///
/// | route | command | answer |
/// |---|---|---|
/// | ``pn532InCommunicateThru`` | `FF 00 00 00 Lc D4 42 FRAME` | `D5 43 SS RESP 90 00`; `SS` ≠ 00 is an RF error |
/// | ``acsDirectTransmit`` | `FF 00 00 00 Lc FRAME` | `RESP 90 00`; `63 00` no answer |
/// | ``part3TransparentExchange`` | `FF C2 00 01 Lc [5F 46 04 µs] 95 L FRAME 00` | `C0 03 00 90 00 [92 01 n] [96 02 00 00] 97 L RESP 90 00` |
///
/// Sources, per row (facts carried over, no code):
/// - PN532 InCommunicateThru: ACR122U API v2.04 §6 (direct transmit `FF 00 00 00 Lc` carries a
///   PN532 command `D4 …`, the answer is the PN532 frame `D5 …` then `90 00`; `63 00` when the
///   PN532 does not reply — also libnfc `acr122_pcsc.c`); NXP PN532 user manual §7.3.9
///   (InCommunicateThru `D4 42` → `D5 43 Status DataIn`, status `01` time-out, low 6 bits the
///   error code); pokusew/nfc-pcsc issues #36 (`d5 43 00 PACK 90 00` for NTAG PWD_AUTH) and #59
///   (`d5 43 01 90 00`: time-out).
/// - ACS direct transmit to the card (ACR1252U, ACR1255U-J1): the ACR1252U API manual's direct
///   transmit `FF 00 00 00 Lc payload` (used for FeliCa frames there, see
///   `reference/storage-cards.md`) and a public pyusb script that drives an ACR1252U (072F:223B)
///   with `FF 00 00 00 05 1B PWD` for NTAG213 PWD_AUTH; `63 00` "the operation failed" from the
///   ACR1222U/ACR128 manuals' direct-transmit status table. How the ACR1252U reports a 4-bit
///   NAK was not found: we take it to be one data byte, as the other routes give it. An
///   ACR1281U-C1 (Stack Overflow 78194226) answered PWD_AUTH, GET_VERSION and FAST_READ this way
///   but a WRITE that took effect with `63 00`: it did not pass the 4-bit ACK on, so
///   ``NTAGClient`` reads the page back when a WRITE gets `63 00` on this route.
/// - PC/SC part 3 transparent exchange (Identiv, HID OMNIKEY, generic): PC/SC part 3 v2.02+
///   §3.2.2.1.8 (manage session `81 00` start / `82 00` end, transceive DO `95`, timer DO
///   `5F 46`, response DOs `C0` generic error, `92` RX bits, `96` response status, `97` ICC
///   response); byte-exact session transcript from an ACS ACR1552U in an NXP community thread
///   (`reference/ccid.md` §4.2: `C0 03 01 64 01` when the card does not answer in time). That
///   Identiv uTrust 3700 F / SCL3711 and OMNIKEY 5x21/5x22/5427 accept `FF C2` for ISO 14443-3
///   frames was **not verified** against their manuals (the uTrust 3720F manual documents a
///   proprietary `FF FD` "Traverse" for ISO 15693 custom commands; HID's developer guides were
///   not retrieved).
public enum StorageRawFrameRoute: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// ACR122U: a PN532 InCommunicateThru inside the ACS direct transmit.
    case pn532InCommunicateThru
    /// ACR1252U, ACR1255U-J1: the ACS direct transmit carries the frame itself.
    case acsDirectTransmit
    /// PC/SC part 3 transparent exchange (`FF C2`), inside a transparent session.
    case part3TransparentExchange

    /// Whether a card's 4-bit ACK and NAK come back as they are (one byte, `A` or the NAK).
    /// Not on the PN532 route: while the PN532's CIU checks CRCs (RxCRCEn, CIU_RxMode bit 7,
    /// on after reset) a 4-bit frame fails the check, so InCommunicateThru answers ACK and NAK
    /// alike with the CRC error `02` (UM0701-02 §7.1). Commands answered by an ACK go there by
    /// InDataExchange instead (``StorageRawFrameCodec/wrapAcknowledged(_:route:timeoutMicroseconds:)``),
    /// and a data command's CRC error is its NAK.
    public var passesFourBitAnswers: Bool { self != .pn532InCommunicateThru }

    /// Whether the route needs a transparent session (`FF C2 00 00 02 81 00`) before the first
    /// frame and ends it with `FF C2 00 00 02 82 00`.
    public var needsTransparentSession: Bool { self == .part3TransparentExchange }

    /// The largest raw frame the wrapper carries in one short APDU.
    public var maxFrameLength: Int {
        switch self {
        case .pn532InCommunicateThru: 253 // Lc ≤ 255 with D4 42
        case .acsDirectTransmit: 255
        case .part3TransparentExchange: 248 // 95 81 L + 5F 46 04 tttttttt within Lc ≤ 255
        }
    }

    public var description: String {
        switch self {
        case .pn532InCommunicateThru: "PN532 InCommunicateThru (FF 00 00 00 … D4 42)"
        case .acsDirectTransmit: "ACS direct transmit (FF 00 00 00)"
        case .part3TransparentExchange: "PC/SC part 3 transparent exchange (FF C2)"
        }
    }
}
