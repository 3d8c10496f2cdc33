/// A reader control code for `SCardControl` (``PCSCReaderConnection/control(_:_:)``).
public struct PCSCControlCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The `dwControlCode` value.
    public let rawValue: UInt

    /// The control code `rawValue` as pcsc-lite takes it.
    ///
    /// - Parameter rawValue: the `dwControlCode` value.
    public init(rawValue: UInt) {
        self.rawValue = rawValue
    }

    /// pcsc-lite's `SCARD_CTL_CODE(code)`: `0x42000000 + code` (a macro Swift cannot import).
    ///
    /// - Parameter code: the function number.
    public static func pcscLite(_ code: UInt) -> PCSCControlCode {
        PCSCControlCode(rawValue: 0x4200_0000 + code)
    }

    /// `SCARD_CTL_CODE(1)` (0x42000001), libccid's `IOCTL_SMARTCARD_VENDOR_IFD_EXCHANGE`: the
    /// bytes go to the reader as a CCID PC_to_RDR_Escape and its RDR_to_PC_Escape answer comes
    /// back. libccid refuses it unless its Info.plist's `ifdDriverOptions` has bit 0x01
    /// (DRIVER_OPTION_CCID_EXCHANGE_AUTHORIZED) set (its ifdhandler.c; libnfc's acr122_pcsc uses
    /// the same code on pcsc-lite). The "3500" escape of vendor manuals is Windows' code
    /// (`0x310000 + 3500 × 4`), which libccid does not know: it answers `SCARD_E_UNSUPPORTED_FEATURE`.
    public static let escape = PCSCControlCode.pcscLite(1)

    /// "0x42000001".
    public var description: String { "0x" + String(rawValue, radix: 16, uppercase: true) }
}
