import CardFlow
import CardFlowDESFire
import CardFlowTONCard

/// What `bench ops` runs: how often each operation repeats, whether it may write, and the
/// secrets each card family needs.
///
/// ```swift
/// var plan = OperationsPlan(iterations: 50)
/// plan.allowWrite = true                        // DESFire: creates and deletes application F0CFB0
/// plan.tonPIN = try TONPin("5555")
/// plan.keyStore = try FileKeyStore()            // the TON card's HMAC key
/// ```
public struct OperationsPlan: Sendable {
    /// Measured repetitions of each operation (at least 1).
    public var iterations: Int
    /// Repetitions before measuring, not recorded (0 or more).
    public var warmup: Int
    /// Whether operations that write may run. Every write leaves the card as it was: DESFire
    /// writes go to a bench application that is deleted afterwards, NDEF and ISO 15693 writes
    /// put back the bytes just read.
    public var allowWrite: Bool
    /// Bytes per DESFire read and write, and per TON message signed (at most 189).
    public var dataLength: Int
    /// The DESFire PICC master key (the factory DES key of 8 zero bytes by default).
    public var desfirePICCKey: DESFireKey
    /// The TON card's PIN; without it verify PIN + sign is skipped (a wrong PIN costs one of
    /// the card's tries, so there is no default).
    public var tonPIN: TONPin?
    /// Where the TON card's HMAC key is (a secret named `ton.hmac.<serial number>`).
    public var keyStore: (any KeyStore)?
    /// The ISO 15693 blocks read (and, with ``allowWrite``, written back); cut to the tag's size.
    public var iso15693Blocks: ClosedRange<Int>
    /// The ISO 15693 block size in bytes; nil asks the tag (GET SYSTEM INFORMATION, which
    /// needs a reader with a transparent exchange).
    public var iso15693BlockSize: Int?

    /// - Parameters:
    ///   - iterations: measured repetitions of each operation (at least 1).
    ///   - warmup: repetitions before measuring, not recorded.
    ///   - allowWrite: whether operations that write may run.
    ///   - dataLength: bytes per DESFire read and write and per TON message signed.
    ///   - desfirePICCKey: the DESFire PICC master key.
    ///   - tonPIN: the TON card's PIN, nil to skip verify PIN + sign.
    ///   - keyStore: where the TON card's HMAC key is, nil to skip verify PIN + sign.
    ///   - iso15693Blocks: the ISO 15693 blocks read and written back.
    ///   - iso15693BlockSize: the ISO 15693 block size, nil to ask the tag.
    public init(
        iterations: Int = 20, warmup: Int = 2, allowWrite: Bool = false, dataLength: Int = 32,
        desfirePICCKey: DESFireKey = .defaultDES, tonPIN: TONPin? = nil, keyStore: (any KeyStore)? = nil,
        iso15693Blocks: ClosedRange<Int> = 0...3, iso15693BlockSize: Int? = nil
    ) {
        self.iterations = iterations
        self.warmup = warmup
        self.allowWrite = allowWrite
        self.dataLength = dataLength
        self.desfirePICCKey = desfirePICCKey
        self.tonPIN = tonPIN
        self.keyStore = keyStore
        self.iso15693Blocks = iso15693Blocks
        self.iso15693BlockSize = iso15693BlockSize
    }

    /// Throws when the plan cannot run.
    func validate() throws(OperationsBenchError) {
        guard iterations >= 1 else { throw .invalidPlan("iterations must be at least 1, not \(iterations)") }
        guard warmup >= 0 else { throw .invalidPlan("warm-up must be 0 or more, not \(warmup)") }
        guard (1...0xFFFF).contains(dataLength) else {
            throw .invalidPlan("data length must be 1 to 65535 bytes, not \(dataLength)")
        }
        guard iso15693Blocks.lowerBound >= 0, iso15693Blocks.upperBound <= 255 else {
            throw .invalidPlan("ISO 15693 blocks are numbered 0 to 255, not \(iso15693Blocks)")
        }
        if let size = iso15693BlockSize, !(1...32).contains(size) {
            throw .invalidPlan("an ISO 15693 block has 1 to 32 bytes, not \(size)")
        }
    }
}
