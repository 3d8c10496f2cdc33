import CardFlow
import Crypto

extension TONWallet {
    /// Most recovery data the card keeps.
    public static let maxRecoveryDataLength = 2048
    /// Bytes per ADD/GET_RECOVERY_DATA_PART.
    static let recoveryPortion = 250

    /// S_T, AI, D5.
    public func resetRecoveryData() async throws {
        try await selectAndCheck(.resetRecoveryData)
        try await exchange(TONCommands.resetRecoveryData)
    }

    /// S_T, AI, D6. - Throws: 40006 unless the answer is one byte 00/01.
    public func isRecoveryDataSet() async throws -> Bool {
        try await selectAndCheck(.isRecoveryDataSet)
        let answer = try await exchange(TONCommands.isRecoveryDataSet)
        guard answer.count == 1, answer[0] <= 1 else { throw TONError.library(code: 40006) }
        return answer[0] == 1
    }

    /// S_T, AI, D3: SHA256 of the stored data. - Throws: 40003.
    public func recoveryDataHash() async throws -> [UInt8] {
        try await selectAndCheck(.getRecoveryDataHash)
        let answer = try await exchange(TONCommands.getRecoveryDataHash)
        guard answer.count == 32 else { throw TONError.library(code: 40003) }
        return answer
    }

    /// S_T, AI, D4: the stored length (1...2048). - Throws: 40004, 40005.
    public func recoveryDataLength() async throws -> Int {
        try await selectAndCheck(.getRecoveryDataLength)
        return try await readRecoveryDataLength()
    }

    /// S_T, AI, D1 per 250-byte part (P1 00 first, 01 next), D1 P1 02 with SHA256 of all.
    /// - Throws: 30012 for empty data or more than 2048 bytes.
    public func addRecoveryData(_ data: [UInt8]) async throws {
        guard (1...Self.maxRecoveryDataLength).contains(data.count) else { throw TONError.library(code: 30012) }
        try await selectAndCheck(.addRecoveryDataPart)
        var start = 0
        while start < data.count {
            let end = min(start + Self.recoveryPortion, data.count)
            try await exchange(try TONCommands.addRecoveryDataPart(Array(data[start..<end]), first: start == 0))
            start = end
            await reportProgress(Double(start) / Double(data.count))
        }
        try await exchange(try TONCommands.finishRecoveryData(hash: Array(SHA256.hash(data: data))))
    }

    /// S_T, AI, D4, then D2 per 250-byte part with Le = the part's length.
    /// - Throws: 40007 when a part comes back short.
    public func recoveryData() async throws -> [UInt8] {
        try await selectAndCheck(.getRecoveryDataPart)
        let length = try await readRecoveryDataLength()
        var data: [UInt8] = []
        while data.count < length {
            let part = min(Self.recoveryPortion, length - data.count)
            let answer = try await exchange(try TONCommands.getRecoveryDataPart(start: data.count, length: part))
            guard answer.count == part else { throw TONError.library(code: 40007, detail: "\(part).") }
            data += answer
            await reportProgress(Double(data.count) / Double(length))
        }
        return data
    }

    private func readRecoveryDataLength() async throws -> Int {
        let answer = try await exchange(TONCommands.getRecoveryDataLength)
        guard answer.count == 2 else { throw TONError.library(code: 40004) }
        let length = Int(answer[0]) << 8 | Int(answer[1])
        guard (1...Self.maxRecoveryDataLength).contains(length) else { throw TONError.library(code: 40005) }
        return length
    }
}
