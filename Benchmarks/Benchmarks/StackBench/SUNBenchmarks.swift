import Benchmark
import CardFlowDESFire

/// SUN verifications per second, as a web back end checks tapped NTAG 424 DNA URLs: URL parsing,
/// PICCData deciphering, SDM session-key derivation and the SDMMAC, with no tag involved. The
/// AN12196 example URL (keys 16 × 00). Each sample verifies `sunBatch` URLs.
let sunBatch = 1_000

func registerSUNBenchmarks() {
    let url = "https://ntag.nxp.com/424?e=EF963FF7828658A599F3041510671E88&c=94EED9EE65337086"
    let zero = [UInt8](repeating: 0, count: 16)
    Benchmark("SUN-VerifyURL-x\(sunBatch)") { benchmark in
        // Key checks are part of set-up, not of each verification.
        guard let verifier = try? NTAG424SUNVerifier(metaReadKey: zero, fileReadKey: zero) else {
            preconditionFailure("16-byte keys are valid")
        }
        benchmark.startMeasurement()
        for _ in 0..<sunBatch {
            let message = try verifier.verify(try NTAG424SUNURLParameters(url: url))
            blackHole(message)
        }
        benchmark.stopMeasurement()
    }
}
