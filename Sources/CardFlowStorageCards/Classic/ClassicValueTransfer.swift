import CardFlow
import Logging

/// A top-up or a payment on a MIFARE Classic value block (an e-purse, a ride counter) as a
/// ``/CardFlow/Flow`` that survives the card leaving at any point without charging twice.
///
/// The sector holds the value block and a backup value block. The flow:
/// 1. **prepare** — authenticates, reads the value, checks the limits (no balance below zero or
///    above ``maximum``, no overflow) and copies the value into the backup block;
/// 2. **apply** — increments or decrements the value block (not idempotent: when the card left
///    during it, the flow compares value and backup to learn whether the change was made);
/// 3. **commit** — copies the new value into the backup block and reads both back.
///
/// A card whose value moved otherwise between the steps (another terminal, a tampered card)
/// fails with ``ClassicValueTransferError/valueChangedElsewhere(expected:found:)`` and is left
/// as it is.
///
/// ```swift
/// let topUp = ClassicValueTransfer(
///     block: 12, backupBlock: 13, keyType: .b, key: purseKey, operation: .topUp(500), maximum: 100_000)
/// let result = try await reader.run(topUp.flow(), policy: policy).value
/// print(result.before, "→", result.after)
/// ```
public struct ClassicValueTransfer: Sendable {
    /// What the flow does to the value.
    public enum Operation: Sendable, Hashable {
        /// Adds the amount (increment, transfer).
        case topUp(Int32)
        /// Subtracts the amount (decrement, transfer); refused when the balance is lower.
        case spend(Int32)

        var amount: Int32 {
            switch self {
            case .topUp(let amount), .spend(let amount): amount
            }
        }
    }

    /// The balances before and after, and the card.
    public struct Result: Sendable, Hashable {
        public var uid: [UInt8]
        public var before: Int32
        public var after: Int32
    }

    public var block: Int
    public var backupBlock: Int
    public var keyType: ClassicKeyType
    public var key: ClassicKey
    /// The reader key slot the key is loaded into.
    public var slot: UInt8
    public var operation: Operation
    /// The highest balance a top-up may reach.
    public var maximum: Int32
    /// The reader dialect; nil looks it up from the reader's USB IDs.
    public var variant: StorageReaderVariant?
    public var logger: Logger

    /// A transfer on `block`, with `backupBlock` in the same sector as its journal.
    public init(
        block: Int, backupBlock: Int, keyType: ClassicKeyType, key: ClassicKey, slot: UInt8 = 0,
        operation: Operation, maximum: Int32 = .max, variant: StorageReaderVariant? = nil,
        logger: Logger = Logger(label: "cardflow.storagecards")
    ) {
        self.block = block
        self.backupBlock = backupBlock
        self.keyType = keyType
        self.key = key
        self.slot = slot
        self.operation = operation
        self.maximum = maximum
        self.variant = variant
        self.logger = logger
    }

    /// Refuses arguments that cannot work on any card, before a card is touched.
    public func validate() throws(ClassicValueTransferError) {
        guard operation.amount > 0 else { throw .invalidArgument("the amount must be positive") }
        guard block != backupBlock else { throw .invalidArgument("the backup block must differ from the value block") }
        guard block > 0, backupBlock > 0 else { throw .invalidArgument("block 0 is the manufacturer block") }
        guard maximum >= 0 else { throw .invalidArgument("the maximum must not be negative") }
    }

    /// The three steps.
    public func flow() -> Flow<Result> {
        let transfer = self
        return Flow.start("prepare") { session in
            let card = try await transfer.open(session)
            let uid = try await transfer.uid(session)
            let before = try await card.readValue(block: transfer.block)
            _ = try transfer.target(from: before)
            try await card.restore(from: transfer.block, to: transfer.backupBlock)
            return Result(uid: uid, before: before, after: before)
        }
        .then(
            "apply", idempotent: false,
            verify: { prepared, session in
                // The backup holds the balance before; the value block tells whether the change landed.
                let card = try await transfer.open(session)
                let (value, backup) = try await transfer.values(card)
                let target = try transfer.target(from: prepared.before)
                guard backup == prepared.before else {
                    throw ClassicValueTransferError.valueChangedElsewhere(expected: prepared.before, found: backup)
                }
                if value == target { return Result(uid: prepared.uid, before: prepared.before, after: target) }
                guard value == prepared.before else {
                    throw ClassicValueTransferError.valueChangedElsewhere(expected: prepared.before, found: value)
                }
                return nil
            }
        ) { prepared, session in
            let card = try await transfer.open(session)
            let target = try transfer.target(from: prepared.before)
            let value = try await card.readValue(block: transfer.block)
            guard value == prepared.before else {
                throw ClassicValueTransferError.valueChangedElsewhere(expected: prepared.before, found: value)
            }
            switch transfer.operation {
            case .topUp(let amount): try await card.increment(block: transfer.block, by: amount)
            case .spend(let amount): try await card.decrement(block: transfer.block, by: amount)
            }
            return Result(uid: prepared.uid, before: prepared.before, after: target)
        }
        .then("commit") { applied, session in
            let card = try await transfer.open(session)
            try await card.restore(from: transfer.block, to: transfer.backupBlock)
            let (value, backup) = try await transfer.values(card)
            guard value == applied.after, backup == applied.after else {
                throw ClassicValueTransferError.valueChangedElsewhere(expected: applied.after, found: value)
            }
            transfer.logger.debug("value transfer committed", metadata: ["block": "\(transfer.block)"])
            return applied
        }
    }

    /// The balance after the operation, or why there is none.
    func target(from before: Int32) throws(ClassicValueTransferError) -> Int32 {
        switch operation {
        case .topUp(let amount):
            let (sum, overflow) = before.addingReportingOverflow(amount)
            guard !overflow, sum <= maximum else {
                throw .limitExceeded(balance: before, amount: amount, maximum: maximum)
            }
            return sum
        case .spend(let amount):
            guard before >= amount else { throw .insufficientBalance(balance: before, amount: amount) }
            return before - amount
        }
    }

    private func open(_ session: CardSession) async throws -> ClassicClient {
        let card = try await ClassicClient.open(on: session, variant: variant, logger: logger)
        guard card.layout.sector(ofBlock: block) == card.layout.sector(ofBlock: backupBlock),
            card.layout.sector(ofBlock: block) != nil, !card.layout.isTrailer(block),
            !card.layout.isTrailer(backupBlock)
        else {
            throw ClassicValueTransferError.invalidArgument(
                "blocks \(block) and \(backupBlock) must be data blocks of one sector of this card")
        }
        try await card.authenticate(
            sector: card.layout.sector(ofBlock: block) ?? 0, keyType: keyType, key: key, slot: slot)
        return card
    }

    private func values(_ card: ClassicClient) async throws -> (value: Int32, backup: Int32) {
        (try await card.readValue(block: block), try await card.readValue(block: backupBlock))
    }

    /// The UID for the outcome; a reader that refuses GET DATA leaves it empty.
    private func uid(_ session: CardSession) async throws -> [UInt8] {
        do {
            return try await StorageCardUID.read(from: session)
        } catch StorageCardError.commandFailed {
            return []
        }
    }
}

/// Why a ``ClassicValueTransfer`` refused or stopped.
public enum ClassicValueTransferError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The transfer's parameters cannot work; nothing was sent (or nothing was changed).
    case invalidArgument(String)
    /// A spend larger than the balance; nothing was changed.
    case insufficientBalance(balance: Int32, amount: Int32)
    /// A top-up past the maximum (or past the 32-bit range); nothing was changed.
    case limitExceeded(balance: Int32, amount: Int32, maximum: Int32)
    /// The value moved between the flow's steps by something else than this flow: the card is
    /// left as it is for someone to look at.
    case valueChangedElsewhere(expected: Int32, found: Int32)

    public var description: String {
        switch self {
        case .invalidArgument(let text): "invalid value transfer: \(text)"
        case .insufficientBalance(let balance, let amount): "balance \(balance) is lower than the amount \(amount)"
        case .limitExceeded(let balance, let amount, let maximum):
            "balance \(balance) + \(amount) would exceed the maximum \(maximum)"
        case .valueChangedElsewhere(let expected, let found):
            "the value block holds \(found) where \(expected) was expected: changed by something else, left as it is"
        }
    }
}
