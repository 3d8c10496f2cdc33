import Benchmark
import CardFlow
import CardFlowBenchSupport
import CardFlowSimulator
import CardFlowStorageCards

/// Block I/O of the storage-card families through the whole stack at zero latency (client →
/// CardSession → CCID driver → virtual reader → simulated card), on an ACR1252U (ACS dialect and
/// direct transmit) and an OMNIKEY 5422 (part 3 dialect and transparent exchange). Each sample
/// runs `cardBatch` operations.
///
/// - MIFARE Classic 1K: READ BINARY and UPDATE BINARY of one block in an authenticated sector.
/// - FeliCa Lite-S: Read Without Encryption of four blocks (one command) and Write Without
///   Encryption of one block.
func registerStorageCardBenchmarks() {
    let readers: [(String, UInt16, UInt16)] = [("ACS", 0x072F, 0x223B), ("Part3", 0x076B, 0x5422)]
    for (name, vendorID, productID) in readers {
        Benchmark("Classic-READ-block-\(name)") { benchmark in
            let (card, session) = try await classicClient(vendorID, productID)
            benchmark.startMeasurement()
            for index in 0..<cardBatch {
                let block = try await card.readBlock(4 + index % 3)
                precondition(block.count == 16)
            }
            benchmark.stopMeasurement()
            await session.close()
        }
        Benchmark("Classic-WRITE-block-\(name)") { benchmark in
            let (card, session) = try await classicClient(vendorID, productID)
            let data = [UInt8](repeating: 0xA5, count: 16)
            benchmark.startMeasurement()
            for index in 0..<cardBatch {
                try await card.writeBlock(4 + index % 3, data: data)
            }
            benchmark.stopMeasurement()
            await session.close()
        }
        Benchmark("FeliCa-READ-4blocks-\(name)") { benchmark in
            let (card, session) = try await feliCaClient(vendorID, productID)
            benchmark.startMeasurement()
            for _ in 0..<cardBatch {
                let blocks = try await card.read(blocks: [0, 1, 2, 3])
                precondition(blocks.count == 64)
            }
            benchmark.stopMeasurement()
            try await card.finish()
            await session.close()
        }
        Benchmark("FeliCa-WRITE-block-\(name)") { benchmark in
            let (card, session) = try await feliCaClient(vendorID, productID)
            let data = [UInt8](repeating: 0x5A, count: 16)
            benchmark.startMeasurement()
            for index in 0..<cardBatch {
                try await card.write(block: 1 + index % 13, data)
            }
            benchmark.stopMeasurement()
            try await card.finish()
            await session.close()
        }
    }
}

/// A session on `card`, lying on a zero-latency simulated reader with this USB identity.
func storageCardSession(_ card: any VirtualCard, vendorID: UInt16, productID: UInt16) async throws -> CardSession {
    var configuration = VirtualReaderConfiguration.level(.shortAPDU, maxMessageLength: 271)
    configuration.vendorID = vendorID
    configuration.productID = productID
    configuration.timing = .zero
    let virtual = VirtualCCIDReader(configuration: configuration)
    await virtual.insert(card)
    let reader = Reader.simulated(virtual, id: "sim:\(card.kind)", logger: discardingLogger(level: .info))
    return try await reader.connect()
}

private func classicClient(_ vendorID: UInt16, _ productID: UInt16) async throws -> (ClassicClient, CardSession) {
    let session = try await storageCardSession(
        SimulatedMIFAREClassicCard(seed: 1, size: .oneK), vendorID: vendorID, productID: productID)
    let card = try await ClassicClient.open(on: session)
    try await card.authenticate(sector: 1, keyType: .a, key: .transport)
    return (card, session)
}

private func feliCaClient(_ vendorID: UInt16, _ productID: UInt16) async throws -> (FeliCaClient, CardSession) {
    let session = try await storageCardSession(
        SimulatedFeliCaLiteSCard(seed: 1), vendorID: vendorID, productID: productID)
    return (try await FeliCaClient.open(on: session), session)
}
