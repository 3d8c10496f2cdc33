import CardFlow
import CardFlowDESFire
import CardFlowISO15693
import CardFlowNDEF
import CardFlowSimulator
import CardFlowTONCard
import Testing

@testable import CardFlowBench

/// `bench ops` against the simulated cards: the rows, their exact APDU counts, writes refused
/// without --allow-write, the card left as it was, family detection and cancellation.
@Suite("bench ops on the simulated cards")
struct BenchOperationsTests {
    static let aid = try! DESFireApplicationID(hex: "F0CFB0")

    /// A session on a fresh simulated card of `specification`.
    static func withCard<T: Sendable>(
        _ specification: String, _ body: @Sendable (CardFlow.Reader, CardSession) async throws -> T
    ) async throws -> T {
        let setup = try await SimulatorSetup(specification: try SimulatorSpecification(parsing: specification))
        let reader = setup.cardFlowReaders()[0]
        var policy = SessionPolicy()
        policy.connectTimeout = .seconds(5)
        return try await reader.withSession(policy: policy) { session in try await body(reader, session) }
    }

    static func plan(iterations: Int = 5, allowWrite: Bool = false) -> OperationsPlan {
        OperationsPlan(iterations: iterations, warmup: 1, allowWrite: allowWrite)
    }

    /// The row called `name` (with `commMode`), recorded once.
    static func row(_ result: OperationsResult, _ name: String, _ commMode: String? = nil) -> OperationTiming? {
        let rows = result.operations.filter { $0.name == name && $0.commMode == commMode }
        #expect(rows.count <= 1)
        return rows.first
    }

    /// Checks a row's APDU count and that every iteration was measured with a positive time.
    static func expectRow(
        _ result: OperationsResult, _ name: String, _ commMode: String? = nil, apdus: Double, iterations: Int = 5,
        writes: Bool = false, bytes: Int? = nil, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        guard let row = row(result, name, commMode) else {
            Issue.record("no row \(name) \(commMode ?? "")", sourceLocation: sourceLocation)
            return
        }
        #expect(row.apdusPerOperation == apdus, "\(name)", sourceLocation: sourceLocation)
        #expect(row.statistics.count == iterations, sourceLocation: sourceLocation)
        #expect(row.statistics.minNs > 0, sourceLocation: sourceLocation)
        #expect(row.statistics.minNs <= row.statistics.p50Ns, sourceLocation: sourceLocation)
        #expect(row.statistics.p50Ns <= row.statistics.maxNs, sourceLocation: sourceLocation)
        #expect(row.statistics.apdusPerSecond > 0, sourceLocation: sourceLocation)
        #expect(row.writes == writes, sourceLocation: sourceLocation)
        if let bytes { #expect(row.bytes == bytes, sourceLocation: sourceLocation) }
    }

    static func applicationIDs(_ session: CardSession) async throws -> [DESFireApplicationID] {
        let client = DESFireClient(channel: session)
        try await client.selectApplication(.picc)
        try await client.authenticate(keyNumber: 0, key: .defaultDES)
        return try await client.getApplicationIDs()
    }

    // MARK: - DESFire

    @Test("DESFire without --allow-write: PICC rows, the application rows skipped")
    func desfireReadOnly() async throws {
        let result = try await Self.withCard("sim:desfire") { _, session in
            try await OperationsBench.run(family: .desfire, channel: session, plan: Self.plan(), clock: RealClock())
        }
        #expect(result.family == "desfire")
        // SELECT (5A) + GetVersion's three frames (60, AF, AF).
        Self.expectRow(result, "select PICC + get version", apdus: 4)
        // ISO authentication with the DES PICC key: 1A, then AF with the token.
        Self.expectRow(result, "authenticate PICC master key (DES)", apdus: 2)
        // GetApplicationIDs (6A) of an empty card: one frame.
        Self.expectRow(result, "get application IDs", apdus: 1)
        #expect(result.operations.count == 3)
        #expect(result.operations.allSatisfy { !$0.writes })
        #expect(result.skipped.count == 7)
        #expect(
            result.skipped.allSatisfy { $0.reason == "needs --allow-write (creates and deletes application F0CFB0)" })
        #expect(result.skipped.map(\.name).contains("write 32 B (full)"))
    }

    @Test("DESFire with --allow-write: per comm mode write and read, the application deleted afterwards")
    func desfireWrites() async throws {
        let (before, result, after) = try await Self.withCard("sim:desfire") { _, session in
            // Another application, which the bench must leave alone.
            let client = DESFireClient(channel: session)
            try await client.selectApplication(.picc)
            try await client.authenticate(keyNumber: 0, key: .defaultDES)
            try await client.createApplication(try DESFireApplicationID(hex: "123456"), keyCount: 1, keyType: .aes)
            let before = try await Self.applicationIDs(session)
            let result = try await OperationsBench.run(
                family: .desfire, channel: session, plan: Self.plan(allowWrite: true), clock: RealClock())
            return (before, result, try await Self.applicationIDs(session))
        }
        #expect(before == [try DESFireApplicationID(hex: "123456")])
        #expect(after == before)
        #expect(result.skipped.isEmpty, "\(result.skipped)")
        Self.expectRow(result, "get application IDs", apdus: 1)
        // AES authentication: AA, then AF with the token.
        Self.expectRow(result, "authenticate AES (application key 0)", apdus: 2)
        // WriteData: 7 header bytes + 32 data (plain), + 8-byte CMAC (MAC), or + 48 enciphered
        // bytes (32 data + CRC32, padded): 55 bytes is more than the 54 of one frame, so 2 frames.
        Self.expectRow(result, "write 32 B", "plain", apdus: 1, writes: true, bytes: 32)
        Self.expectRow(result, "write 32 B", "mac", apdus: 1, writes: true, bytes: 32)
        Self.expectRow(result, "write 32 B", "full", apdus: 2, writes: true, bytes: 32)
        // ReadData: 32 bytes + CMAC (40) or 48 enciphered bytes fit one 59-byte answer frame.
        Self.expectRow(result, "read 32 B", "plain", apdus: 1, bytes: 32)
        Self.expectRow(result, "read 32 B", "mac", apdus: 1, bytes: 32)
        Self.expectRow(result, "read 32 B", "full", apdus: 1, bytes: 32)
        #expect(result.operations.count == 10)
    }

    @Test("DESFire: an application F0CFB0 that already exists is neither used nor deleted")
    func desfireExistingBenchApplication() async throws {
        let (result, after) = try await Self.withCard("sim:desfire") { _, session in
            let client = DESFireClient(channel: session)
            try await client.selectApplication(.picc)
            try await client.authenticate(keyNumber: 0, key: .defaultDES)
            try await client.createApplication(Self.aid, keyCount: 2, keyType: .aes)
            let result = try await OperationsBench.run(
                family: .desfire, channel: session, plan: Self.plan(allowWrite: true), clock: RealClock())
            return (result, try await Self.applicationIDs(session))
        }
        #expect(after == [Self.aid])
        #expect(result.operations.count == 3)
        #expect(result.skipped.count == 7)
        #expect(result.skipped.allSatisfy { $0.reason.contains("already exists") })
    }

    @Test("DESFire: a wrong PICC key skips the authentication and the writes with the typed error")
    func desfireWrongPICCKey() async throws {
        var plan = Self.plan(allowWrite: true)
        plan.desfirePICCKey = try DESFireKey(type: .des, hex: "0102030405060708")
        let wrongKeyPlan = plan
        let result = try await Self.withCard("sim:desfire") { _, session in
            try await OperationsBench.run(family: .desfire, channel: session, plan: wrongKeyPlan, clock: RealClock())
        }
        Self.expectRow(result, "select PICC + get version", apdus: 4)
        #expect(Self.row(result, "authenticate PICC master key (DES)") == nil)
        let failed = result.skipped.first { $0.name == "authenticate PICC master key (DES)" }
        #expect(failed?.reason.contains("DESFireError") == true)
        #expect(result.skipped.filter { $0.reason.contains("did not authenticate") }.count == 7)
    }

    @Test("cancellation stops the run early, keeps what was measured and still deletes the bench application")
    func cancellationReturnsPartialResults() async throws {
        let (result, after) = try await Self.withCard("sim:desfire") { _, session in
            let run = Task {
                // Cancelled from inside, halfway through the application's first row (rows 0-2
                // are done at 0.3 of the 10 rows): deterministic, whatever the machine's speed.
                try await OperationsBench.run(
                    family: .desfire, channel: session, plan: Self.plan(iterations: 40, allowWrite: true),
                    clock: RealClock(),
                    progress: { fraction in
                        if fraction > 0.35 { withUnsafeCurrentTask { $0?.cancel() } }
                    })
            }
            let result = try await run.value
            return (result, try await Self.applicationIDs(session))
        }
        #expect(after.isEmpty)
        #expect(result.skipped.isEmpty)
        #expect(result.operations.count == 4)
        Self.expectRow(result, "get application IDs", apdus: 1, iterations: 40)
        let partial = try #require(Self.row(result, "authenticate AES (application key 0)"))
        #expect(partial.apdusPerOperation == 2)
        #expect(partial.statistics.count == 20)
        #expect(result.operations.allSatisfy { !$0.writes })
    }

    @Test("an invalid plan is refused before anything is sent")
    func invalidPlan() async throws {
        try await Self.withCard("sim:desfire") { _, session in
            await #expect(throws: OperationsBenchError.self) {
                _ = try await OperationsBench.run(
                    family: .desfire, channel: session, plan: OperationsPlan(iterations: 0), clock: RealClock())
            }
        }
    }

    // MARK: - TON

    /// Vector A of the TON reference, the simulated card's factory data.
    static func activation() throws -> TONActivationData {
        try TONActivationData(
            passwordHex:
                "F4B072E1DF2DB7CF6CD0CD681EC5CD2D071458D278E6546763CBB4860F8082FE14418C8A8A55E2106CBC6CB1174F4BA6D827A26A2D205F99B7E00401DA4C15ACC943274B92258114B5E11C16DA64484034F93771547FBE60DA70E273E6BD64F8A4201A9913B386BCA55B6678CFD7E7E68A646A7543E9E439DD5B60B9615079FE",
            commonSecretHex: "7256EFE7A77AFC7E9088266EF27A93CB01CD9432E0DB66D600745D506EE04AC4",
            ivHex: "1A550F4B413D0E971C28293F9183EA8A")
    }

    /// A simulated TON card activated with PIN 1357; the HMAC key lands in `store`.
    static func activatedTONReader(store: InMemoryKeyStore) async throws -> (CardFlow.Reader, SimulatorSetup) {
        let setup = try await SimulatorSetup(specification: try SimulatorSpecification(parsing: "sim:ton"))
        let reader = setup.cardFlowReaders()[0]
        var policy = SessionPolicy()
        policy.identity = TONActivation.cardIdentity
        let state = try await reader.run(
            TONActivation.flow(
                activation: try activation(), pin: try TONPin("1357"), hmacKeys: TONHmacKeyStore(store: store)),
            policy: policy
        ).value
        #expect(state == .personalized)
        return (reader, setup)
    }

    @Test("TON: serial number, public key, verify PIN + sign with the key store's HMAC key")
    func tonOperations() async throws {
        let store = InMemoryKeyStore()
        let (reader, simulator) = try await Self.activatedTONReader(store: store)
        defer { withExtendedLifetime(simulator) {} }
        var plan = Self.plan()
        plan.tonPIN = try TONPin("1357")
        plan.keyStore = store
        let signingPlan = plan
        let result = try await reader.withSession { session in
            try await OperationsBench.run(family: .ton, channel: session, plan: signingPlan, clock: RealClock())
        }
        #expect(result.skipped.isEmpty, "\(result.skipped)")
        // SELECT, GET_APP_INFO, GET_SERIAL_NUMBER.
        Self.expectRow(result, "get serial number", apdus: 3)
        // SELECT, GET_APP_INFO, GET_PUBLIC_KEY_WITH_DEFAULT_PATH.
        Self.expectRow(result, "get public key (default path)", apdus: 3, bytes: 32)
        // SELECT, GET_APP_INFO, GET_SERIAL_NUMBER, GET_SAULT, VERIFY_PIN, GET_SAULT, SIGN.
        Self.expectRow(result, "verify PIN + sign 32 B", apdus: 7, bytes: 32)
    }

    @Test("TON: without the PIN or the HMAC key, verify PIN + sign is skipped with the reason")
    func tonSkipsSigningWithoutSecrets() async throws {
        let store = InMemoryKeyStore()
        let (reader, simulator) = try await Self.activatedTONReader(store: store)
        defer { withExtendedLifetime(simulator) {} }
        let withoutPIN = try await reader.withSession { session in
            var plan = Self.plan()
            plan.keyStore = store
            return try await OperationsBench.run(family: .ton, channel: session, plan: plan, clock: RealClock())
        }
        #expect(
            withoutPIN.skipped == [SkippedOperation(name: "verify PIN + sign 32 B", reason: "needs the card's PIN")])
        Self.expectRow(withoutPIN, "get public key (default path)", apdus: 3, bytes: 32)
        let emptyStore = try await reader.withSession { session in
            var plan = Self.plan()
            plan.tonPIN = try TONPin("1357")
            plan.keyStore = InMemoryKeyStore()
            return try await OperationsBench.run(family: .ton, channel: session, plan: plan, clock: RealClock())
        }
        #expect(emptyStore.skipped.count == 1)
        #expect(emptyStore.skipped.first?.reason.contains("has no HMAC key for card") == true)
    }

    @Test("TON: a card without a seed has every row skipped with the card's error")
    func tonNotActivated() async throws {
        let result = try await Self.withCard("sim:ton") { _, session in
            try await OperationsBench.run(family: .ton, channel: session, plan: Self.plan(), clock: RealClock())
        }
        // A card without a seed refuses even the applet's SELECT (6F02, setting the curve failed).
        #expect(result.operations.isEmpty)
        #expect(result.skipped.count == 3)
        #expect(result.skipped.allSatisfy { $0.reason.contains("TONError") })
    }

    // MARK: - NDEF

    /// A URI record (well-known "U", https://) of `text`.
    static func uriMessage(_ text: String) -> [UInt8] {
        let payload = [0x04] + Array(text.utf8)
        return [0xD1, 0x01, UInt8(payload.count), 0x55] + payload
    }

    @Test("NDEF Type 4: read, and write back the same message with --allow-write")
    func ndefType4() async throws {
        let message = Self.uriMessage("example.com/cardflow/bench")
        let (result, after) = try await Self.withCard("sim:ndef4") { _, session in
            try await Type4Tag(channel: session).writeMessageBytes(message)
            let result = try await OperationsBench.run(
                family: .ndef, channel: session, plan: Self.plan(allowWrite: true), clock: RealClock())
            return (result, try await Type4Tag(channel: session).readMessageBytes())
        }
        #expect(after == message)
        #expect(result.skipped.isEmpty)
        // SELECT application, SELECT CC, READ CCLEN, READ the rest of the CC, SELECT NDEF file,
        // READ NLEN, READ the message (within MLe 255).
        Self.expectRow(result, "read NDEF message (Type 4)", apdus: 7, bytes: message.count)
        // The four CC APDUs, SELECT NDEF file, UPDATE NLEN 0, UPDATE message (within MLc 246), UPDATE NLEN.
        Self.expectRow(result, "write NDEF message (Type 4)", apdus: 8, writes: true, bytes: message.count)
    }

    @Test("NDEF Type 2: read; the write is refused without --allow-write")
    func ndefType2() async throws {
        let message = Self.uriMessage("example.com/t2")
        let result = try await Self.withCard("sim:type2") { _, session in
            try await Type2Tag(channel: session).writeMessageBytes(message)
            return try await OperationsBench.run(family: .ndef, channel: session, plan: Self.plan(), clock: RealClock())
        }
        // READ pages 2-5 (CC), then the data area up to the end of the NDEF TLV, 16 bytes per
        // READ: TLV 03 13 and 19 bytes end in the second READ.
        Self.expectRow(result, "read NDEF message (Type 2)", apdus: 1 + 2, bytes: message.count)
        #expect(
            result.skipped == [
                SkippedOperation(
                    name: "write NDEF message (Type 2)", reason: "needs --allow-write (writes back the message it read)"
                )
            ])
    }

    @Test("NDEF Type 2: the write-back leaves the message as it was")
    func ndefType2Write() async throws {
        let message = Self.uriMessage("example.com/t2") // 19 bytes: TLV 03 13 … FE is 22 bytes
        let (result, after) = try await Self.withCard("sim:type2") { _, session in
            try await Type2Tag(channel: session).writeMessageBytes(message)
            let result = try await OperationsBench.run(
                family: .ndef, channel: session, plan: Self.plan(allowWrite: true), clock: RealClock())
            return (result, try await Type2Tag(channel: session).readMessageBytes())
        }
        #expect(message.count == 19)
        #expect(after == message)
        // CC and the data area up to where the new TLV ends (3 READs: 22 bytes end in page 9),
        // then pages 4 (empty TLV), 5-9 (the rest), 4 again (the length).
        Self.expectRow(result, "write NDEF message (Type 2)", apdus: 3 + 7, writes: true, bytes: message.count)
    }

    // MARK: - ISO 15693

    @Test("ISO 15693: block reads over the range, read multiple, and the write-back")
    func iso15693() async throws {
        let (before, result, after) = try await Self.withCard("sim:iso15693") { _, session in
            let tag = ISO15693Tag(channel: session)
            let before = try await tag.readBlocks(0, count: 28, blockSize: 4)
            let result = try await OperationsBench.run(
                family: .iso15693, channel: session, plan: Self.plan(allowWrite: true), clock: RealClock())
            return (before, result, try await tag.readBlocks(0, count: 28, blockSize: 4))
        }
        #expect(after == before)
        #expect(result.skipped.isEmpty, "\(result.skipped)")
        Self.expectRow(result, "get system information", apdus: 1)
        Self.expectRow(result, "read block", apdus: 1, bytes: 4)
        Self.expectRow(result, "read blocks 0-3 (one READ BINARY each)", apdus: 4, bytes: 16)
        Self.expectRow(result, "read multiple blocks 0-3", apdus: 1, bytes: 16)
        Self.expectRow(result, "write block (same bytes)", apdus: 1, writes: true, bytes: 4)
    }

    @Test("ISO 15693: a range past the tag's end is cut; a locked block ends the write with the error")
    func iso15693RangeAndLockedBlock() async throws {
        var plan = Self.plan(allowWrite: true)
        plan.iso15693Blocks = 26...40
        let rangePlan = plan
        let result = try await Self.withCard("sim:iso15693,locked=27") { _, session in
            try await OperationsBench.run(family: .iso15693, channel: session, plan: rangePlan, clock: RealClock())
        }
        Self.expectRow(result, "read blocks 26-27 (one READ BINARY each)", apdus: 2, bytes: 8)
        let write = try #require(result.skipped.first { $0.name == "write block (same bytes)" })
        #expect(write.reason.contains("ISO15693Error"))
    }

    // MARK: - Detection

    @Test(
        "family detection of each simulated card",
        arguments: [
            ("sim:desfire", BenchCardFamily.desfire), ("sim:ton", .ton), ("sim:type2", .ndef), ("sim:ndef4", .ndef),
            ("sim:iso15693", .iso15693),
        ])
    func detection(_ specification: String, _ family: BenchCardFamily) async throws {
        let detected = try await Self.withCard(specification) { _, session in
            try await OperationsBench.detectFamily(session: session)
        }
        #expect(detected == family)
    }
}
