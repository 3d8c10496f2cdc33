import CardFlow
import CardFlowDaemon
import CardFlowDaemonControl
import CardFlowStorageCards

/// The parameters of a `classic-value` flow: top up or charge a MIFARE Classic value block (an
/// e-purse, a ride or entry counter) with ``/CardFlowStorageCards/ClassicValueTransfer``, which moves the
/// balance exactly once even when the card leaves mid-flow.
///
/// ```json
/// {"kind": "classic-value", "operation": "top-up", "amount": 500, "block": 12, "backupBlock": 13,
///  "keySecret": "purse-key-b", "keyType": "b", "maximum": 100000}
/// ```
///
/// The sector key is a key-store secret of 6 bytes (`keySecret`), so it never appears in the
/// configuration, the job log or the logs. `operation` is `top-up` or `spend`; `keyType` is `a`
/// or `b` (default `b`, the key purses give the write and increment rights to); `readerKeySlot`
/// is the reader's key slot the key is loaded into (default 0); `maximum` caps a top-up.
public struct ClassicValueRule: DaemonFlow, Hashable {
    public static let kind = "classic-value"
    public static let writesToCard = true

    public var operation: String
    public var amount: Int32
    public var block: Int
    public var backupBlock: Int
    public var keySecret: String
    public var keyType: String
    public var readerKeySlot: UInt8
    public var maximum: Int32

    public init(
        operation: String, amount: Int32, block: Int, backupBlock: Int, keySecret: String, keyType: String = "b",
        readerKeySlot: UInt8 = 0, maximum: Int32 = .max
    ) {
        self.operation = operation
        self.amount = amount
        self.block = block
        self.backupBlock = backupBlock
        self.keySecret = keySecret
        self.keyType = keyType
        self.readerKeySlot = readerKeySlot
        self.maximum = maximum
    }

    enum CodingKeys: String, CodingKey {
        case operation, amount, block, backupBlock, keySecret, keyType, readerKeySlot, maximum
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        operation = try container.decode(String.self, forKey: .operation)
        amount = try container.decode(Int32.self, forKey: .amount)
        block = try container.decode(Int.self, forKey: .block)
        backupBlock = try container.decode(Int.self, forKey: .backupBlock)
        keySecret = try container.decode(String.self, forKey: .keySecret)
        keyType = try container.decodeIfPresent(String.self, forKey: .keyType) ?? "b"
        readerKeySlot = try container.decodeIfPresent(UInt8.self, forKey: .readerKeySlot) ?? 0
        maximum = try container.decodeIfPresent(Int32.self, forKey: .maximum) ?? .max
        func fail(_ key: CodingKeys, _ message: String) -> DecodingError {
            DecodingError.dataCorruptedError(forKey: key, in: container, debugDescription: message)
        }
        guard ["top-up", "spend"].contains(operation) else { throw fail(.operation, "top-up or spend") }
        guard ["a", "b"].contains(keyType) else { throw fail(.keyType, "a or b") }
        guard !keySecret.isEmpty else { throw fail(.keySecret, "the name of a 6-byte key-store secret") }
        // Block numbers and amounts are checked as the flow would check them, before a card is touched.
        do {
            try transfer(key: .transport).validate()
        } catch {
            throw fail(.amount, error.description)
        }
        guard (1..<256).contains(block), (1..<256).contains(backupBlock) else {
            throw fail(.block, "blocks 1 to 255 (MIFARE Classic 4K has 256)")
        }
    }

    /// The flow's parameters with the key from the store.
    public func transfer(key: ClassicKey) -> ClassicValueTransfer {
        ClassicValueTransfer(
            block: block, backupBlock: backupBlock, keyType: keyType == "a" ? .a : .b, key: key, slot: readerKeySlot,
            operation: operation == "spend" ? .spend(amount) : .topUp(amount), maximum: maximum)
    }
}

extension ClassicValueRule {
    /// Top up or charge the value block; a missing secret or one that is no 6-byte key fails
    /// before a card is touched.
    public func job(_ context: DaemonFlowContext) async throws -> FlowJob {
        let transfer = transfer(key: try ClassicKey(try await context.secret(keySecret)))
        try transfer.validate()
        let block = self.block
        let flow = transfer.flow().map { result in
            JobOutcome([
                "uid": result.uid.hexString, "block": "\(block)", "before": "\(result.before)",
                "after": "\(result.after)",
            ])
        }
        return FlowJob(flow: flow)
    }
}

extension FlowSpecification {
    /// Top up or charge a MIFARE Classic value block (``ClassicValueRule``).
    public static func classicValue(_ rule: ClassicValueRule) -> FlowSpecification {
        FlowSpecification(rule)
    }
}
