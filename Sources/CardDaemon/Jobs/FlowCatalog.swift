import CardFlow
import ISO15693
import NDEF

/// Builds the CardFlow ``Flow`` a ``FlowSpecification`` names. Every flow starts by recording the
/// card's identity, so that the job log has it even when a later step fails.
public enum FlowCatalog {
    public static func flow(for specification: FlowSpecification) -> Flow<JobOutcome> {
        let identify = Flow.start("identify") { session in
            let identity = await session.identity
            var values = ["atr": identity.atr.hexString]
            if let uid = identity.uid { values["uid"] = uid.hexString }
            return JobOutcome(values)
        }
        switch specification {
        case .report:
            return identify
        case .apdus(let apdus, let expect):
            return identify.then("apdus", idempotent: false) { outcome, session in
                var outcome = outcome
                var answers: [String] = []
                for (index, bytes) in apdus.enumerated() {
                    let command = try CommandAPDU(bytes: bytes)
                    let response = try await session.send(command)
                    answers.append(response.encoded().hexString)
                    if let expect, response.statusWord.rawValue != expect {
                        throw DaemonFlowError.unexpectedStatus(apdu: index, statusWord: response.statusWord.rawValue,
                                                               expected: expect)
                    }
                    await session.reportProgress(Double(index + 1) / Double(apdus.count))
                }
                outcome.values["responses"] = answers.joined(separator: " ")
                return outcome
            }
        case .ndefWrite(let content):
            return identify.then("ndef-write", idempotent: true) { outcome, session in
                let record: NDEFRecord
                switch content {
                case .uri(let uri): record = URIRecord(uri).record
                case .text(let text): record = try TextRecord(text).record
                }
                let message = try NDEFMessage([record]).encoded()
                let tag = try await NDEFTag.detect(on: session)
                try await tag.writeMessageBytes(message)
                // Read back: a write the card acknowledged but did not keep is a failure, not a success.
                guard try await tag.readMessageBytes() == message else { throw DaemonFlowError.readBackMismatch }
                var outcome = outcome
                outcome.values["written"] = message.hexString
                return outcome
            }
        case .ndefRead:
            return identify.then("ndef-read") { outcome, session in
                let tag = try await NDEFTag.detect(on: session)
                var outcome = outcome
                outcome.values["message"] = try await tag.readMessageBytes().hexString
                return outcome
            }
        case .iso15693Read(let first, let count):
            return identify.then("iso15693-read") { outcome, session in
                let tag = ISO15693Tag(channel: session)
                var outcome = outcome
                outcome.values["blocks"] = try await tag.readBlocks(first, count: count).hexString
                return outcome
            }
        }
    }
}

/// Why a daemon flow failed, beyond the card layers' own errors.
public enum DaemonFlowError: Error, Sendable, Hashable, CustomStringConvertible {
    case unexpectedStatus(apdu: Int, statusWord: UInt16, expected: UInt16)
    case readBackMismatch

    public var description: String {
        switch self {
        case .unexpectedStatus(let apdu, let sw, let expected):
            "APDU \(apdu + 1) answered \(String(format: "%04X", sw)), expected \(String(format: "%04X", expected))"
        case .readBackMismatch: "the data read back differs from what was written"
        }
    }
}
