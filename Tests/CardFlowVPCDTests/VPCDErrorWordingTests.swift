import CardFlow
import CardFlowVPCD
import NIOCore
import Testing

@testable import CardFlowVPCDProtocol

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// vpcd errors say what happened in vpcd's terms (issue 35, item 15): no radio field is blamed
/// for a silent card side, and a reset connection is the card side leaving, not a failed write.
@Suite("vpcd errors in vpcd's own terms")
struct VPCDErrorWordingTests {
    @Test("a connection reset by the card side is the card side closing; other socket errors say the system's reason")
    func socketFailures() {
        let reset = IOError(errnoCode: ECONNRESET, reason: "read(descriptor:pointer:size:)")
        #expect(VPCDSocketFailure.lossReason(for: reset) == .peerClosed)
        let other = VPCDSocketFailure.lossReason(
            for: IOError(errnoCode: EHOSTUNREACH, reason: "read(descriptor:pointer:size:)"))
        let text = "\(other)"
        #expect(!text.contains("read(") && !text.contains("writing"), "\(text)")
        #expect(text.contains(String(cString: strerror(EHOSTUNREACH))), "\(text)")
    }

    @Test("a silent card side at power on is a vpcd error about the ATR, not 'several cards in the field'")
    func silentCardSide() async throws {
        let configuration = VPCDListener.Configuration(
            timeouts: VPCDTimeouts(answer: .milliseconds(300), lateAnswer: .milliseconds(300)),
            maximumResponseLength: 300)
        try await VPCDListener.withListener(port: 0, configuration: configuration, logger: quietLogger) { listener in
            let raw = try await RawPeer.connect(port: listener.port)
            try await within(.seconds(60), "silent peer") {
                try await withThrowingTaskGroup(of: Void.self) { group in
                    group.addTask {
                        // Reads whatever comes and never answers, until the listener hangs up.
                        try await raw.run { reader, _ in _ = try? await reader.read(count: 1 << 20) }
                    }
                    try await waitFor(.present, on: listener)
                    var policy = SessionPolicy()
                    policy.connectTimeout = .seconds(5)
                    let error = await #expect(throws: (any Error).self) {
                        try await Reader(vpcd: listener).withSession(policy: policy) { _ in }
                    }
                    let text = "\(String(describing: error))"
                    #expect(!(error is SessionError), "\(text)")
                    #expect(!text.contains("several cards"), "\(text)")
                    #expect(text.contains("ATR"), "\(text)")
                    group.cancelAll()
                }
            }
        }
    }
}
