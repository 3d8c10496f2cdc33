import CardFlow
import CardFlowCrypto

/// The Transaction MAC of a committed transaction (DESFire EV2/EV3 TransactionMAC file,
/// MF2DLHX0 §10.3, AN12343): the counter TMC, the value TMV, and the Transaction MAC Input
/// (TMI) the client recorded while the transaction ran.
///
/// A back office holding the AppTransactionMACKey checks the TMV without the card:
///
/// ```
/// SesTMMACKey = CMAC(AppTransactionMACKey, 5A 00 01 00 80 ‖ TMC ‖ UID)   (TMC as reported: already + 1)
/// TMV         = MACt(SesTMMACKey, TMI)                                   (odd bytes of the CMAC)
/// ```
///
/// ```swift
/// let mac = try await client.commitTransactionReturningMAC()
/// let genuine = try mac.verify(key: transactionMACKey, uid: uid)
/// ```
public struct DESFireTransactionMAC: Sendable, Hashable, CustomStringConvertible {
    /// TMC: how many transactions were MACed (4 bytes, least significant first on the wire).
    public let counter: UInt32
    /// TMV: the 8-byte Transaction MAC Value.
    public let value: [UInt8]
    /// TMI as the client recorded it (empty when it did not record the transaction).
    public let input: [UInt8]

    /// A Transaction MAC from known values.
    public init(counter: UInt32, value: [UInt8], input: [UInt8] = []) {
        self.counter = counter
        self.value = value
        self.input = input
    }

    /// Parses `TMC(4) ‖ TMV(8)` (the TransactionMAC file, or CommitTransaction's answer).
    init(response: [UInt8], input: [UInt8], command: DESFireCommand) throws(DESFireError) {
        guard response.count == 12 else {
            throw .malformedResponse(command: command, reason: "TMC ‖ TMV has 12 bytes, not \(response.count)")
        }
        self.init(counter: littleEndianValue(response[0..<4]), value: Array(response[4...]), input: input)
    }

    /// SesTMMACKey for counter `counter` (the counter as reported, already incremented):
    /// `CMAC(AppTransactionMACKey, SV1)`, SV1 = `5A 00 01 00 80 ‖ TMC ‖ UID` (MF2DLHX0 §10.3.2.3;
    /// checked against proxmark3 desfiretest.c `TestTransSessionKeys`).
    ///
    /// - Throws: ``DESFireError/invalidArgument(_:)`` for a key that is not AES or a UID that is not 7 bytes.
    public static func sessionMACKey(key: DESFireKey, counter: UInt32, uid: [UInt8]) throws(DESFireError) -> [UInt8] {
        try sessionKey(label: 0x5A, key: key, counter: counter, uid: uid)
    }

    /// SesTMENCKey for counter `counter` (as reported): `CMAC(AppTransactionMACKey, SV2)`, SV2 =
    /// `A5 00 01 00 80 ‖ TMC ‖ UID`. It enciphers the previous ReaderID that CommitReaderID returns.
    ///
    /// - Throws: ``DESFireError/invalidArgument(_:)`` for a key that is not AES or a UID that is not 7 bytes.
    public static func sessionEncryptionKey(key: DESFireKey, counter: UInt32, uid: [UInt8]) throws(DESFireError)
        -> [UInt8]
    {
        try sessionKey(label: 0xA5, key: key, counter: counter, uid: uid)
    }

    /// NIST SP 800-108 counter mode with CMAC: label, counter `00 01`, length `00 80`, context TMC ‖ UID.
    private static func sessionKey(label: UInt8, key: DESFireKey, counter: UInt32, uid: [UInt8]) throws(DESFireError)
        -> [UInt8]
    {
        guard key.type == .aes else { throw .invalidArgument("the AppTransactionMACKey is AES, not \(key.type)") }
        guard uid.count == 7 else { throw .invalidArgument("the UID has 7 bytes, not \(uid.count)") }
        let vector = [label, 0x00, 0x01, 0x00, 0x80] + littleEndian(counter, count: 4) + uid
        let keyBytes = key.bytes
        return try crypto { () throws(CardCryptoError) in try AESCMAC.mac(vector, key: keyBytes) }
    }

    /// The TMV the card should have computed over ``input``.
    public func expectedValue(key: DESFireKey, uid: [UInt8]) throws(DESFireError) -> [UInt8] {
        let sessionKey = try Self.sessionMACKey(key: key, counter: counter, uid: uid)
        let input = self.input
        return MACTruncation.ev2OddBytes(
            try crypto { () throws(CardCryptoError) in try AESCMAC.mac(input, key: sessionKey) })
    }

    /// Whether ``value`` is the TMV of ``input`` under `key` for the card with real UID `uid`.
    public func verify(key: DESFireKey, uid: [UInt8]) throws(DESFireError) -> Bool {
        constantTimeEqual(try expectedValue(key: key, uid: uid), value)
    }

    /// TMC and TMV; never the input.
    public var description: String { "<TMC \(counter), TMV \(value.hexString)>" }
}

/// Builds TMI, the Transaction MAC Input (MF2DLHX0 §10.3.4): each data command of the
/// transaction adds its plain parameters and data, each part zero-padded to 16 bytes.
struct DESFireTransactionMACInput: Sendable {
    private(set) var bytes: [UInt8] = []

    /// `head ‖ ZeroPadding`, then `data ‖ ZeroPadding` when given.
    mutating func add(_ head: [UInt8], data: [UInt8]? = nil) {
        bytes += head
        pad()
        if let data {
            bytes += data
            pad()
        }
    }

    private mutating func pad() {
        bytes += [UInt8](repeating: 0, count: (16 - bytes.count % 16) % 16)
    }
}
