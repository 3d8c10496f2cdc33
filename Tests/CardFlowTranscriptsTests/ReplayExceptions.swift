import CardFlowTranscripts

/// Where a replay of the corpus is not identical, each case with the exact difference and why:
/// the one list of exceptions. The replay test holds every entry to the letter, so a change in
/// the driver or the replay that moves a difference fails until this list says why.
enum ReplayExceptions {
    /// A difference between CardFlow's driver and pcscd + libccid, or one a gap in the public
    /// copy causes.
    struct Difference {
        /// Why the difference is valid.
        let reason: String
        /// The operations (indexes into the replay report) whose outcomes differ.
        let differingOperations: [Int]
        /// CardFlow's outcome of those operations, where it is a kind (not free text).
        let cardFlowOutcomes: [Int: TranscriptOutcome]
        /// Where the recording refused the driver's command, if it did.
        let mismatchPositions: [ReplayPosition]
    }

    /// Transcripts that are parsed but not replayed: no descriptor dump of the reader is in
    /// `Tests/Fixtures/ccid-readers`, and none stands in (a `# descriptor:` line naming a dump of
    /// the same reader family whose CCID class descriptor is the same, with the reason in the file).
    /// Empty since the Yubikey NEO OTP+CCID (1050:0111) got the NEO U2F+CCID's dump as its stand-in.
    static let withoutDescriptor: Set<String> = []

    /// Transcripts whose public copy has neither the power-on nor the ATR: the replay cannot
    /// power the card for the driver (``ReplayStandIn/powerOn`` needs an ATR), so the driver's
    /// IccPowerOn is the first mismatch and nothing after it is replayed. The test checks exactly
    /// that; the files stay in the corpus for the parser and for the day the ATR turns up.
    static let withoutAnswerToReset: [String: String] = [
        "ccid-72-feitian-r502-t1-wrong-nr.log":
            "the copy starts at the APDU, after power-on, PPS and IFSD exchange; the card's ATR is not in it",
        "feitian-mobile-4-br301-read-binary-lost.log":
            "the SDK trace in the report starts at the first SELECT; the power-on and the card's ATR are before it",
        "libnfc-263-acr122u-select-mute.log":
            "the report starts after the device was opened; the card was on the reader, its ATR is not in the copy",
    ]

    static let differences: [String: Difference] = [
        "pyscard-18-acr122u-ultralight-mute.log": Difference(
            reason: """
                The ACR122U answered the XfrBlock with an empty DataBlock, bStatus 00 (processed) and \
                bError FE (ICC_MUTE). libccid read bStatus only and pcscd returned an empty response \
                with success, which crashed pyscard (the issue's title: "empty response -> crash on \
                empty sw1"). A response APDU has at least SW1 SW2, so CardFlow's driver reports the \
                mute card (CCIDDriverError.cardMute) instead: both read the same frame, CardFlow \
                gives the caller an error it can act on.
                """,
            differingOperations: [0],
            cardFlowOutcomes: [0: .failure(.cardAbsentOrMute)],
            mismatchPositions: []),
        "pcsc-71-gemalto-ct40-t1.log": Difference(
            reason: """
                Up to the second power-up everything matches libccid byte for byte: the slot polls, \
                the PPS request FF 11 18 F6, SetParameters 18 10 00 45 00 FE 00, the I-block with \
                N(S)=0 and its 147-byte answer, the IccPowerOn. The last piece starts with libccid's \
                second I-block after that power-up (PCB 40, N(S)=1); the first one (N(S)=0, bSeq \
                0x1E) is in the gap. CardFlow, like libccid, begins a new T=1 session after a reset \
                with N(S)=0, so its block (PCB 00) cannot match: a gap in the copy, not a difference \
                of behaviour. The replay shows the frame and the position.
                """,
            differingOperations: [4],
            cardFlowOutcomes: [:],
            mismatchPositions: [ReplayPosition(segment: 3, command: 1, segmentLine: 53)]),
    ]
}
