import CardFlowPCSCLite
import CardFlowSimulator
import Foundation
import Logging
import Testing

/// What the pcscd-backed tests need from their environment, which Scripts/pcsc-backend-check.sh
/// sets up: a private pcscd (PCSCLITE_CSOCK_NAME) with libccid driving `cardctl simulate`'s reader.
enum PCSCTestEnvironment {
    static let variables = ProcessInfo.processInfo.environment
    static let isCI = variables["CI"].map { !$0.isEmpty && $0 != "false" && $0 != "0" } ?? false
    /// The private pcscd's socket; libpcsclite reads the same variable.
    static let socket = variables["PCSCLITE_CSOCK_NAME"].flatMap { $0.isEmpty ? nil : $0 }
    /// Run when a private pcscd is announced, and always under CI (where a missing one is a failure).
    static let hasPCSCD = socket != nil || isCI
    static let skipReason: Comment = """
        no private pcscd: PCSCLITE_CSOCK_NAME is unset; run Scripts/pcsc-backend-check.sh \
        (with CI=true these tests run, and fail without pcscd)
        """

    /// The simulated card leaves after this many APDUs (the script's removal phase), then
    /// comes back after `returnAfter`.
    static let liftAfter = variables["CARDFLOW_PCSC_LIFT_AFTER"].flatMap { Int($0) }
    static let returnAfter = variables["CARDFLOW_PCSC_RETURN_AFTER_MS"].flatMap { Int($0) }.map {
        Duration.milliseconds($0)
    }

    /// The simulated reader's name contains this (libccid names 1209:2702 after its USB strings).
    static let readerSubstring = variables["CARDFLOW_PCSC_READER"] ?? "CardFlow"

    /// `cardctl simulate --card iso7816` (seed 1): ISO-DEP type A through a PC/SC part 3 reader.
    static let simulatedATR = ContactlessATR.atr(for: ISO7816Card(seed: 1).technology)

    static let logger: Logger = {
        var logger = Logger(label: "CardFlowPCSCTests")
        logger.logLevel = variables["CARDFLOW_PCSC_TRACE"] != nil ? .trace : .info
        return logger
    }()

    /// The simulated reader, once pcscd lists it (libccid may still be starting): polls for 20 s.
    static func simulatedReader(_ context: PCSCContext) async throws -> String {
        let deadline = ContinuousClock.now + .seconds(20)
        var seen: [String] = []
        while ContinuousClock.now < deadline {
            seen = try await context.readers()
            if let reader = seen.first(where: { $0.contains(readerSubstring) }) { return reader }
            try await Task.sleep(for: .milliseconds(100))
        }
        Issue.record("no reader containing \"\(readerSubstring)\" within 20 s; pcscd lists \(seen)")
        throw CancellationError()
    }

    /// `body`'s result, or a failure when it takes longer than `limit` (for awaits that would
    /// otherwise hang a broken run).
    static func within<T: Sendable>(
        _ limit: Duration, _ what: String,
        _ body: @escaping @Sendable () async throws -> T
    ) async throws -> T {
        try await withThrowingTaskGroup(of: T?.self) { group in
            group.addTask { try await body() }
            group.addTask {
                try await Task.sleep(for: limit)
                return nil
            }
            defer { group.cancelAll() }
            guard let first = try await group.next(), let value = first else {
                Issue.record("\(what) took longer than \(limit)")
                throw CancellationError()
            }
            return value
        }
    }
}

/// Command APDUs for the simulator's ISO 7816 card (see `ISO7816Card`), and its answers.
enum SimulatedCard {
    static let aid: [UInt8] = [0xA0, 0x00, 0x00, 0x02, 0x47, 0x10, 0x01]
    /// Case 1: SELECT the MF, no data, no answer data.
    static let selectMasterFile: [UInt8] = [0x00, 0xA4, 0x00, 0x0C]
    /// Case 3: SELECT the application by AID, no answer data.
    static let selectApplicationNoFCI: [UInt8] = [0x00, 0xA4, 0x04, 0x0C, 0x07] + aid
    /// Case 4: SELECT the application by AID, with its FCI.
    static let selectApplication: [UInt8] = [0x00, 0xA4, 0x04, 0x00, 0x07] + aid + [0x00]
    static let applicationFCI: [UInt8] = [0x6F, 0x0D, 0x83, 0x02, 0x70, 0x01, 0x84, 0x07] + aid
    /// SELECT EF `0101` (32 bytes 00…1F) or `0102` (1000 bytes, i mod 251) under the application.
    static func selectFile(_ low: UInt8) -> [UInt8] { [0x00, 0xA4, 0x02, 0x0C, 0x02, 0x01, low] }
    /// Case 2: READ BINARY from offset 0, `le` bytes (0 = 256).
    static func readBinary(_ le: UInt8) -> [UInt8] { [0x00, 0xB0, 0x00, 0x00, le] }
    static let ok: [UInt8] = [0x90, 0x00]
}
