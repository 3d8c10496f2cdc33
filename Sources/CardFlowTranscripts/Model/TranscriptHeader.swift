/// What a transcript file's header says about the recording: `# key: value` lines before the log.
///
/// ```
/// # source: https://github.com/LudovicRousseau/pyscard/issues/18
/// # reader: ACS ACR122U PICC Interface 072F:2200
/// # card: MIFARE Ultralight
/// # license: quoted from a public issue for interoperability testing
/// # descriptor: ACR122U_PICC.txt
/// # atr: 3B 8F 80 01 80 4F 0C A0 00 00 03 06 03 00 03 00 00 00 00 68
/// # protocol: T=1
/// ```
public struct TranscriptHeader: Sendable, Hashable {
    /// `source`: where the log was published.
    public var source: String?
    /// The reader's name from `reader` (without the VID:PID).
    public var readerName: String?
    /// USB vendor ID from `reader` (`VVVV:PPPP` at its end), or from the log.
    public var vendorID: UInt16?
    /// USB product ID from `reader`, or from the log.
    public var productID: UInt16?
    /// `card`: the card, as the file's author identified it.
    public var card: String?
    /// `license`: on what terms the log is kept.
    public var license: String?
    /// `descriptor`: the file in `Tests/Fixtures/ccid-readers` describing the reader.
    public var descriptorFile: String?
    /// `interface`: which CCID interface of a composite reader the log talks to (0 when absent).
    public var interface: Int
    /// `atr`: the card's ATR, for segments that start after the power-on.
    public var answerToReset: [UInt8]?
    /// `protocol`: 0 or 1, the protocol pcscd set up, for segments that start after it.
    public var transmissionProtocol: Int?
    /// `note` lines, in order.
    public var notes: [String]
    /// The data rates the reader answered to GET_DATA_RATES, in bps, as libccid logs them
    /// (`get_data_rates() declared: 125000 bps`); empty when the log does not show them.
    public var dataRates: [UInt32]

    /// An empty header.
    public init() {
        interface = 0
        notes = []
        dataRates = []
    }
}
