import CardFlow
import CardFlowNDEF

/// The NDEF operations of `bench ops`: reading the message of a Type 2, 4 or 5 tag and, with
/// ``OperationsPlan/allowWrite``, writing the same message back (the tag's content does not
/// change).
struct NDEFOperations {
    let plan: OperationsPlan

    /// Rows the run produces, for progress.
    var plannedOperations: Int { 2 }

    func run(_ recorder: inout OperationsRecorder) async throws {
        let channel = recorder.channel
        guard
            let tag = try await recorder.prepare(
                "finding the NDEF tag type", dependents: ["read NDEF message", "write NDEF message"],
                { try await NDEFTag.detect(on: channel) })
        else { return }
        let type = Self.typeName(tag)
        let readRow = "read NDEF message (\(type))"
        let writeRow = "write NDEF message (\(type))"
        guard
            let message = try await recorder.prepare(
                "reading the NDEF message", dependents: [readRow, writeRow], { try await tag.readMessageBytes() })
        else { return }
        try await recorder.measure(readRow, bytes: message.count) { _ in _ = try await tag.readMessageBytes() }
        guard plan.allowWrite else {
            recorder.skip([writeRow], reason: "needs --allow-write (writes back the message it read)")
            return
        }
        try await recorder.measure(writeRow, bytes: message.count, writes: true) { _ in
            try await tag.writeMessageBytes(message)
        }
    }

    static func typeName(_ tag: NDEFTag) -> String {
        switch tag {
        case .type2: "Type 2"
        case .type4: "Type 4"
        case .type5: "Type 5"
        }
    }
}
