/// How the card behind a simulated character-level reader behaves on its I/O line, for tests of
/// the host's procedure-byte handling and of hostile cards. The default is a well-behaved card.
public struct CharacterLineBehaviour: Sendable, Hashable {
    /// NULL procedure bytes (60) the card sends before each procedure byte that moves data or
    /// ends the command (asking for more time, ISO/IEC 7816-3 §10.3.3).
    public var nullBytes: Int = 0
    /// T=0: the card moves data one byte at a time (INS ⊕ FF) instead of all at once (INS).
    public var oneByteAtATime = false
    /// T=0: after the header the card sends NULL for ever.
    public var endlessNull = false
    /// T=0: after the header the card sends this byte, which is no procedure byte, then 90 00,
    /// and stops.
    public var invalidProcedureByte: UInt8? = nil
    /// T=0: the card leaves out the last byte (SW2) of every answer, then goes silent.
    public var dropsLastByte = false
    /// The card sends nothing after the ATR.
    public var mute = false
    /// The reader returns only the first this many bytes of the ATR in the IccPowerOn DataBlock;
    /// the rest waits on the I/O line (nil: the whole ATR).
    public var atrBytesInPowerOn: Int? = nil
    /// When the card goes silent before wLevelParameter bytes, the reader returns what it got as
    /// a successful DataBlock (a reader bug) instead of reporting ICC_MUTE.
    public var readerReturnsShortAnswers = false

    public init(
        nullBytes: Int = 0, oneByteAtATime: Bool = false, endlessNull: Bool = false,
        invalidProcedureByte: UInt8? = nil, dropsLastByte: Bool = false, mute: Bool = false,
        atrBytesInPowerOn: Int? = nil, readerReturnsShortAnswers: Bool = false
    ) {
        self.nullBytes = max(nullBytes, 0)
        self.oneByteAtATime = oneByteAtATime
        self.endlessNull = endlessNull
        self.invalidProcedureByte = invalidProcedureByte
        self.dropsLastByte = dropsLastByte
        self.mute = mute
        self.atrBytesInPowerOn = atrBytesInPowerOn
        self.readerReturnsShortAnswers = readerReturnsShortAnswers
    }
}
