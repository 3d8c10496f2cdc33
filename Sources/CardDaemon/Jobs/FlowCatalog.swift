import CardFlow
import DESFire
import ISO15693
import NDEF

/// A flow ready to run, with what it needs of the session policy (e.g. DESFire's identity by
/// GetCardUID).
public struct FlowJob: Sendable {
    public var flow: Flow<JobOutcome>
    public var policy: @Sendable (SessionPolicy) -> SessionPolicy
}

/// Builds the CardFlow ``Flow`` a ``FlowSpecification`` names. Every flow starts by recording the
/// card's identity, so that the job log has it even when a later step fails.
public enum FlowCatalog {
    /// The flow with its keys taken from `keys` (flows that need none ignore it).
    ///
    /// - Throws: ``DaemonFlowError/noKeyStore`` when a flow needs keys and there is no store;
    ///   the key store's and DESFire's errors for empty slots or keys of the wrong type.
    public static func job(for specification: FlowSpecification, keys: (any KeyStore)?) async throws -> FlowJob {
        guard case .desfireProvision(let rule) = specification else {
            return FlowJob(flow: keylessFlow(for: specification), policy: { $0 })
        }
        guard let keys else { throw DaemonFlowError.noKeyStore }
        let key = try await DESFireKey(slot: try KeySlot(rule.keySlot), in: keys)
        var piccKey = DESFireKey.defaultDES
        if let slot = rule.piccKeySlot { piccKey = try await DESFireKey(slot: try KeySlot(slot), in: keys) }
        let provisioning = DESFireProvisioning(
            application: try DESFireApplicationID(UInt32(rule.aid[0]) << 16 | UInt32(rule.aid[1]) << 8 | UInt32(rule.aid[2])),
            file: rule.file, size: rule.size, commMode: DESFireCommMode(name: rule.comm) ?? .enciphered, key: key,
            data: rule.data, piccKey: piccKey)
        try provisioning.validate()
        let flow = provisioning.flow().map { result in
            JobOutcome(["uid": result.uid.hexString, "aid": rule.aid.hexString, "file": "\(result.file)",
                        "written": "\(result.readBack.count) bytes"])
        }
        return FlowJob(flow: flow, policy: { provisioning.policy(base: $0) })
    }

    /// The flows that need no keys.
    private static func keylessFlow(for specification: FlowSpecification) -> Flow<JobOutcome> {
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
        case .desfireProvision:
            preconditionFailure("job(for:keys:) builds desfire-provision")
        }
    }
}

/// Why a daemon flow failed, beyond the card layers' own errors.
public enum DaemonFlowError: Error, Sendable, Hashable, CustomStringConvertible {
    case unexpectedStatus(apdu: Int, statusWord: UInt16, expected: UInt16)
    case readBackMismatch
    case noKeyStore

    public var description: String {
        switch self {
        case .unexpectedStatus(let apdu, let sw, let expected):
            "APDU \(apdu + 1) answered \(String(format: "%04X", sw)), expected \(String(format: "%04X", expected))"
        case .readBackMismatch: "the data read back differs from what was written"
        case .noKeyStore: "this flow takes its keys from a key store, and cardd has none (set \"keyStore\" in the configuration)"
        }
    }
}
