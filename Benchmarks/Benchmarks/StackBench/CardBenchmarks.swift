import Benchmark
import CardFlow
import CardFlowBenchSupport
import CardFlowDESFire
import CardFlowTONCard

/// Every card-level sample runs `cardBatch` operations; the runner divides wall clock and mallocs
/// by `cardBatch` to get per-operation figures.
let cardBatch = 10

/// DESFire file I/O and TON signing through the whole stack (client → CardSession → CCID driver →
/// in-memory transport → virtual reader at zero latency → card model). Each iteration sets up a
/// fresh card outside the measured region.
func registerCardBenchmarks() {
    // AES-authenticated, enciphered (CMAC/IV chained, CRC32, AES-CBC) ReadData and WriteData, EV1
    // and EV2 secure messaging.
    for length in [32, 256] {
        Benchmark("DESFire-ReadData-Enc-\(length)B") { benchmark in
            let (client, session) = try await DESFireBench.authenticatedClient(commMode: .enciphered)
            benchmark.startMeasurement()
            for _ in 0..<cardBatch {
                let data = try await client.readData(
                    file: DESFireBench.file, offset: 0, length: length, commMode: .enciphered)
                precondition(data.count == length)
            }
            benchmark.stopMeasurement()
            await session.close()
        }
        Benchmark("DESFire-WriteData-Enc-\(length)B") { benchmark in
            let (client, session) = try await DESFireBench.authenticatedClient(commMode: .enciphered)
            let data = (0..<length).map { UInt8(truncatingIfNeeded: $0) }
            benchmark.startMeasurement()
            for _ in 0..<cardBatch {
                try await client.writeData(file: DESFireBench.file, offset: 0, data: data, commMode: .enciphered)
            }
            benchmark.stopMeasurement()
            await session.close()
        }
        // The same file after AuthenticateEV2First: EV2 secure messaging in CommMode.Full (IV per
        // command from TI and CmdCtr, AES-CBC, truncated CMAC on command and answer).
        Benchmark("DESFire-EV2-ReadData-Full-\(length)B") { benchmark in
            let (client, session) = try await DESFireBench.authenticatedClient(commMode: .enciphered)
            try await client.authenticateEV2First(keyNumber: 0, key: .defaultAES)
            benchmark.startMeasurement()
            for _ in 0..<cardBatch {
                let data = try await client.readData(
                    file: DESFireBench.file, offset: 0, length: length, commMode: .enciphered)
                precondition(data.count == length)
            }
            benchmark.stopMeasurement()
            await session.close()
        }
        Benchmark("DESFire-EV2-WriteData-Full-\(length)B") { benchmark in
            let (client, session) = try await DESFireBench.authenticatedClient(commMode: .enciphered)
            try await client.authenticateEV2First(keyNumber: 0, key: .defaultAES)
            let data = (0..<length).map { UInt8(truncatingIfNeeded: $0) }
            benchmark.startMeasurement()
            for _ in 0..<cardBatch {
                try await client.writeData(file: DESFireBench.file, offset: 0, data: data, commMode: .enciphered)
            }
            benchmark.stopMeasurement()
            await session.close()
        }
    }

    // HMAC-protected signing (SIGN_SHORT_MESSAGE_WITH_DEFAULT_PATH after VERIFY_PIN, with the
    // sault fetch and HMAC of every protected APDU) on an activated card.
    Benchmark("TON-SignDefaultPath-32B") { benchmark in
        let (wallet, session) = try await TONBench.verifiedWallet()
        let message = [UInt8](repeating: 0x42, count: 32)
        benchmark.startMeasurement()
        for _ in 0..<cardBatch {
            let signature = try await wallet.signForDefaultPath(message)
            precondition(signature.count == 64)
        }
        benchmark.stopMeasurement()
        await session.close()
    }
}
