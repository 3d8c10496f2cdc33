import Benchmark
import CardFlow
import CardFlowBenchSupport
import CardFlowSimulator
import CardFlowStorageCards

/// NTAG215 page I/O through the whole stack at zero latency (NTAGClient → CardSession → CCID
/// driver → virtual reader → simulated tag): READ and WRITE by the part 3 pseudo-APDUs and by
/// raw frames (on an ACR1252U's direct transmit and an OMNIKEY 5422's part 3 transparent
/// exchange), and FAST_READ of 32 pages. Each sample runs `cardBatch` operations.
func registerNTAGBenchmarks() {
    let readers: [(String, UInt16, UInt16)] = [("ACS", 0x072F, 0x223B), ("Part3", 0x076B, 0x5422)]
    for (name, vendorID, productID) in readers {
        for rawPathOnly in [false, true] {
            let path = rawPathOnly ? "Raw" : "PCSC"
            Benchmark("NTAG-READ-\(path)-\(name)") { benchmark in
                let (tag, session) = try await ntagClient(vendorID, productID, rawPathOnly: rawPathOnly)
                benchmark.startMeasurement()
                for index in 0..<cardBatch {
                    let pages = try await tag.read(page: 4 + index)
                    precondition(pages.count == 16)
                }
                benchmark.stopMeasurement()
                await session.close()
            }
            Benchmark("NTAG-WRITE-\(path)-\(name)") { benchmark in
                let (tag, session) = try await ntagClient(vendorID, productID, rawPathOnly: rawPathOnly)
                benchmark.startMeasurement()
                for index in 0..<cardBatch {
                    try await tag.write(page: 4 + index, [0xA5, 0x5A, UInt8(index), 0x00])
                }
                benchmark.stopMeasurement()
                await session.close()
            }
        }
        Benchmark("NTAG-FAST_READ-32pages-\(name)") { benchmark in
            let (tag, session) = try await ntagClient(vendorID, productID, rawPathOnly: true)
            benchmark.startMeasurement()
            for _ in 0..<cardBatch {
                let pages = try await tag.fastRead(4...35)
                precondition(pages.count == 128)
            }
            benchmark.stopMeasurement()
            await session.close()
        }
    }
}

/// A session on a simulated NTAG215 lying on a reader with this USB identity.
private func ntagClient(_ vendorID: UInt16, _ productID: UInt16, rawPathOnly: Bool) async throws -> (
    NTAGClient, CardSession
) {
    let session = try await storageCardSession(
        SimulatedNTAG21xCard(seed: 1, model: .ntag215), vendorID: vendorID, productID: productID)
    return (try await NTAGClient.open(on: session, rawPathOnly: rawPathOnly), session)
}
