import CardFlow

/// The state of an EV2 secure channel after AuthenticateEV2First or AuthenticateEV2NonFirst:
/// session keys, transaction identifier (TI) and command counter (CmdCtr).
///
/// A value type with no I/O: ``command(_:header:data:mode:)`` builds the next ISO-wrapped native
/// command, ``verifyResponse(_:to:mode:)`` checks the card's answer and advances the counter. The
/// counter rules (NT4H2421Gx §9.1.2, AN12196 §5):
///
/// - AuthenticateEV2First starts a transaction: a new TI from the card, CmdCtr `0000`.
/// - AuthenticateEV2NonFirst keeps TI and CmdCtr and only replaces the session keys.
/// - Every command answered `91 00` inside the session advances CmdCtr by one, whatever its
///   communication mode (a plain WriteData too: AN12196 Table 24 runs at `0100`, Table 25 at `0200`).
///   A command and its answer are MACed with the counter before and after that step.
/// - An error status ends the session on the card; the counter does not move.
/// - At `FFFF` no further command can be sent (its answer would need `10000`).
///
/// ```swift
/// var session = try await authenticate(…)                         // see EV2Authentication
/// let apdu = try session.command(.getFileSettings, header: [0x02], mode: .mac)
/// let settings = try session.verifyResponse(try await channel.transmit(apdu), to: .getFileSettings, mode: .mac)
/// session.commandCounter                                          // 1
/// ```
public struct EV2Session: Sendable, CustomStringConvertible {
    /// The key the session was authenticated with.
    public let keyNumber: UInt8
    /// SesAuthENCKey and SesAuthMACKey.
    public let keys: EV2SessionKeys
    /// The transaction identifier the card chose in AuthenticateEV2First (4 bytes).
    public let transactionIdentifier: [UInt8]
    /// CmdCtr: how many commands the card answered in this transaction.
    public private(set) var commandCounter: UInt16
    /// PDcap2 from AuthenticateEV2First (6 bytes; empty after a NonFirst or for known values).
    public let cardCapabilities: [UInt8]
    /// PCDcap2 as the card echoed it in AuthenticateEV2First (6 bytes; empty as above).
    public let readerCapabilities: [UInt8]

    /// A session from known values: a published example, or one resumed from storage.
    ///
    /// - Throws: ``EV2Error/invalidArgument(_:)`` unless the TI has 4 bytes.
    public init(
        keyNumber: UInt8, keys: EV2SessionKeys, transactionIdentifier: [UInt8], commandCounter: UInt16 = 0,
        cardCapabilities: [UInt8] = [], readerCapabilities: [UInt8] = []
    ) throws(EV2Error) {
        guard transactionIdentifier.count == 4 else {
            throw .invalidArgument("a transaction identifier has 4 bytes, not \(transactionIdentifier.count)")
        }
        self.init(
            keyNumber: keyNumber, keys: keys, checkedTransactionIdentifier: transactionIdentifier,
            commandCounter: commandCounter, cardCapabilities: cardCapabilities,
            readerCapabilities: readerCapabilities)
    }

    /// The stored properties, with a TI already known to have 4 bytes.
    private init(
        keyNumber: UInt8, keys: EV2SessionKeys, checkedTransactionIdentifier transactionIdentifier: [UInt8],
        commandCounter: UInt16, cardCapabilities: [UInt8], readerCapabilities: [UInt8]
    ) {
        self.keyNumber = keyNumber
        self.keys = keys
        self.transactionIdentifier = transactionIdentifier
        self.commandCounter = commandCounter
        self.cardCapabilities = cardCapabilities
        self.readerCapabilities = readerCapabilities
    }

    /// The counter an answer to the next command is MACed (and, in CommMode.Full, enciphered) with.
    ///
    /// - Throws: ``EV2Error/commandCounterExhausted(instruction:)`` at `FFFF`.
    func answerCounter(for instruction: EV2Instruction) throws(EV2Error) -> UInt16 {
        guard commandCounter < .max else { throw .commandCounterExhausted(instruction: instruction) }
        return commandCounter + 1
    }

    /// Counts one command answered `91 00`.
    mutating func advanceCounter(for instruction: EV2Instruction) throws(EV2Error) {
        commandCounter = try answerCounter(for: instruction)
    }

    /// The same TI and counter under new session keys: what AuthenticateEV2NonFirst leaves.
    func replacingKeys(with keys: EV2SessionKeys, keyNumber: UInt8) -> EV2Session {
        EV2Session(
            keyNumber: keyNumber, keys: keys, checkedTransactionIdentifier: transactionIdentifier,
            commandCounter: commandCounter, cardCapabilities: [], readerCapabilities: [])
    }

    /// Key number, TI and counter; never the keys.
    public var description: String {
        "<EV2 session, key \(keyNumber), TI \(transactionIdentifier.hexString), CmdCtr \(commandCounter)>"
    }
}

/// A 16-bit command counter as EV2 transmits it: least significant byte first.
func littleEndian(_ counter: UInt16) -> [UInt8] {
    [UInt8(truncatingIfNeeded: counter), UInt8(truncatingIfNeeded: counter >> 8)]
}
