import CardFlow
import CardFlowDaemon

/// `{"kind": "apdu", "apdus": ["00A4…", …], "expect": "9000"}`: send these APDUs in order; with
/// `expect`, every answer must carry that status word.
public struct APDUFlow: DaemonFlow, Hashable {
    public static let kind = "apdu"
    public static let writesToCard = true

    /// The command APDUs, encoded.
    public var apdus: [[UInt8]]
    /// The status word every answer must carry, when given.
    public var expect: UInt16?

    /// - Parameters:
    ///   - apdus: the command APDUs, encoded.
    ///   - expect: the status word every answer must carry.
    public init(apdus: [[UInt8]], expect: UInt16? = nil) {
        self.apdus = apdus
        self.expect = expect
    }

    enum CodingKeys: String, CodingKey { case apdus, expect }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        apdus = try container.decode([HexBytes].self, forKey: .apdus).map(\.bytes)
        guard !apdus.isEmpty, apdus.count <= 1024, apdus.allSatisfy({ (4...65_544).contains($0.count) }) else {
            throw DecodingError.dataCorruptedError(
                forKey: .apdus, in: container, debugDescription: "1 to 1024 APDUs of 4 to 65544 bytes")
        }
        if let text = try container.decodeIfPresent(String.self, forKey: .expect) {
            guard text.count == 4, let value = UInt16(text, radix: 16) else {
                throw DecodingError.dataCorruptedError(
                    forKey: .expect, in: container, debugDescription: "a status word of 4 hex digits, e.g. 9000")
            }
            expect = value
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(apdus.map(HexBytes.init), forKey: .apdus)
        if let expect {
            // Four digits, as the decoder requires: 0x0900 is "0900", not "900".
            let digits = String(expect, radix: 16, uppercase: true)
            try container.encode(String(repeating: "0", count: 4 - digits.count) + digits, forKey: .expect)
        }
    }

    public func job(_ context: DaemonFlowContext) async throws -> FlowJob {
        let apdus = self.apdus
        let expect = self.expect
        let flow = DaemonFlowSteps.identify.then("apdus", idempotent: false) { outcome, session in
            var outcome = outcome
            var answers: [String] = []
            for (index, bytes) in apdus.enumerated() {
                let command = try CommandAPDU(bytes: bytes)
                let response = try await session.send(command)
                answers.append(response.encoded().hexString)
                if let expect, response.statusWord.rawValue != expect {
                    throw DaemonFlowError.unexpectedStatus(
                        apdu: index, statusWord: response.statusWord.rawValue, expected: expect)
                }
                await session.reportProgress(Double(index + 1) / Double(apdus.count))
            }
            outcome.values["responses"] = answers.joined(separator: " ")
            return outcome
        }
        return FlowJob(flow: flow)
    }
}

extension FlowSpecification {
    /// Send these APDUs in order (``APDUFlow``).
    public static func apdus(_ apdus: [[UInt8]], expect: UInt16?) -> FlowSpecification {
        FlowSpecification(APDUFlow(apdus: apdus, expect: expect))
    }
}
