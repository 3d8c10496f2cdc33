import CardFlow
import CardFlowCCID
import CardFlowCCIDProtocol
import CardFlowSimulator
import Testing

/// The README's tour, compiled and run, so the documented API stays true.
@Suite("README examples")
struct ReadmeExampleTests {
    @Test func tour() async throws {
        let virtual = VirtualCCIDReader(configuration: .level(.extendedAPDU))
        await virtual.insert(ISO7816Card(seed: 1))
        let reader = Reader.simulated(virtual)

        var policy = SessionPolicy()
        policy.cooldown = .milliseconds(5)
        policy.apduTimeout = .seconds(2)
        policy.retries = RetryPolicy(attempts: 2, backoff: .milliseconds(1))

        let data = try await reader.withSession(policy: policy) { session in
            let select = try await session.send(try CommandAPDU(hex: "00A4040007 A0000002471001"))
            try select.throwIfNotSuccess(for: try CommandAPDU(hex: "00A4040007A0000002471001"))
            return try await session.send(try CommandAPDU(hex: "00B0810020")).data
        }
        #expect(data == firstFileContents)

        let flow = Flow.start("select") { session in
            await session.onReconnect(key: "selection") { session in
                _ = try await session.send(try CommandAPDU(hex: "00A4040007A0000002471001"))
            }
            return try await session.send(try CommandAPDU(hex: "00A4040007A0000002471001")).statusWord
        }
        .then("read") { _, session in try await session.send(try CommandAPDU(hex: "00B0810020")).data }
        .then(
            "write", idempotent: false,
            verify: { data, session in
                let now = try await session.send(try CommandAPDU(hex: "00B0810002")).data
                return now == [0xCA, 0xFE] ? data : nil
            }
        ) { data, session in
            _ = try await session.send(try CommandAPDU(hex: "00D6810002CAFE"))
            return data
        }
        .map { $0.count }
        .retry(2, backoff: .milliseconds(1))
        .timeout(.seconds(60))
        .ensure { _ in }
        policy.cardReturnTimeout = .seconds(30)
        let run = reader.run(flow, policy: policy)
        let events = Task {
            var all: [FlowEvent] = []; for await event in run.progress { all.append(event) }; return all
        }
        #expect(try await run.value == 32)
        #expect(await events.value.last == .completed)

        let directory = "/tmp/cardflow-readme-\(UInt64.random(in: 0...UInt64.max))"
        let keys = FileKeyStore(path: directory + "/keys.json")
        try await keys.setKey(
            try StoredKey(algorithm: .aes128, bytes: Array(repeating: 1, count: 16), version: 1), in: try KeySlot(2))
        try await keys.setSecret(try SecretBytes([1, 2, 3]), named: "ton.hmac.0001")
        #expect(String(describing: try await keys.listing()).contains("01010101") == false)
        try await reader.withSession { session in
            await session.addRedaction(.instruction(0xC4, commandData: true))
        }

        let driver = CCIDDriver(
            transport: InMemoryUSBTransport(reader: virtual), descriptor: virtual.configuration.descriptor)
        let atr = try await driver.powerOn()
        #expect(atr == [0x3B, 0x81, 0x80, 0x01, 0x80, 0x80])
        let answer = try await CCIDCardChannel(driver: driver).send(try CommandAPDU(hex: "00A4040007A0000002471001"))
        #expect(answer.statusWord == .success)
    }
}
