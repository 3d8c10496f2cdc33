import CardFlow
import CardFlowSimulator
import CardFlowSimulatorTestSupport
import Testing

@testable import CardFlowDESFire

/// The DESFire client against seeded hostile cards: version, authentication (each method),
/// application and file management, and data, value and record I/O in every comm mode. Every
/// session ends in success or a typed error within its APDU budget.
@Suite("DESFire client against hostile cards, many seeds")
struct HostileDESFireCampaignTests {
    static func isExpected(_ error: any Error) -> Bool {
        error is DESFireError || error is CardChannelError || error is CardStatusError || error is APDUExchangeError
    }

    static func session(_ channel: any CardChannel, _ seed: UInt64) async throws {
        let client = DESFireClient(
            channel: channel,
            randomBytes: { count in
                (0..<count).map { UInt8(truncatingIfNeeded: seed &+ UInt64($0)) }
            })
        let modes: [DESFireCommMode] = [.plain, .mac, .enciphered]
        let mode = modes[Int(seed % 3)]
        let method: DESFireAuthenticationMethod = seed & 4 == 0 ? .automatic : .legacy
        _ = try await client.getVersion()
        try await client.authenticate(keyNumber: 0, key: .defaultDES, method: method)
        _ = try await client.getFreeMemory()
        _ = try await client.getApplicationIDs()
        let aid = try DESFireApplicationID(UInt32(0x10_0000 + seed % 0x1000))
        let type: CardFlowDESFire.DESFireKeyType = seed & 8 == 0 ? .aes : .twoKey3DES
        try await client.createApplication(aid, keyCount: 2, keyType: type)
        try await client.selectApplication(aid)
        _ = try await client.getKeySettings()
        try await client.authenticate(
            keyNumber: 0, key: try DESFireKey(type: type, bytes: [UInt8](repeating: 0, count: type.keyLength)))
        let rights = DESFireAccessRights(read: 0, write: 0, readWrite: 0, change: 0)
        let size = 1 + Int(seed % 300)
        try await client.createDataFile(file: 1, size: size, commMode: mode, accessRights: rights)
        try await client.writeData(file: 1, data: (0..<size).map { UInt8(truncatingIfNeeded: $0) })
        _ = try await client.readData(file: 1, offset: 0, length: 0)
        _ = try await client.getFileSettings(file: 1)
        try await client.createValueFile(
            file: 2, commMode: mode, accessRights: rights, lowerLimit: 0, upperLimit: 1000, value: 10,
            limitedCreditEnabled: true)
        try await client.credit(file: 2, amount: 5)
        try await client.commitTransaction()
        _ = try await client.getValue(file: 2)
        try await client.createRecordFile(file: 3, recordSize: 8, maxRecords: 4, commMode: mode, accessRights: rights)
        try await client.writeRecord(file: 3, data: Array(repeating: 7, count: 8))
        try await client.commitTransaction()
        _ = try await client.readRecords(file: 3)
        _ = try await client.getFileIDs()
        try await client.selectApplication(.picc)
        _ = try await client.getDFNames()
    }

    @Test(arguments: [3, 15])
    func cardWithSpoiledAnswers(hostilePercent: Int) async throws {
        let campaign = HostileCampaign(
            name: "DESFire, \(hostilePercent) % hostile", sessions: HostileCampaign.sessionCount(default: 600),
            firstSeed: UInt64(hostilePercent) << 32, budget: 3_000)
        let report = await campaign.run(
            spoiling: hostilePercent, of: { seed in CardFlowSimulator.DESFireCard(seed: seed) },
            isExpected: Self.isExpected, session: Self.session)
        print(report.summaryLine)
        #expect(report.failureCount == 0, "\(report)")
    }

    @Test func cardsThatOnlyMisbehave() async throws {
        let campaign = HostileCampaign(
            name: "DESFire, all hostile", sessions: HostileCampaign.sessionCount(default: 600), firstSeed: 1 << 40,
            budget: 3_000)
        let report = await campaign.runAgainstHostileCardsOnly(isExpected: Self.isExpected, session: Self.session)
        print(report.summaryLine)
        #expect(report.failureCount == 0, "\(report)")
    }

    /// Control: with nothing spoiled every session succeeds, so the sessions above reach deep
    /// into the client before the hostile answers end them.
    @Test func wellBehavedCardsSucceed() async throws {
        let campaign = HostileCampaign(name: "DESFire, well-behaved", sessions: 50, budget: 3_000)
        let report = await campaign.run(
            spoiling: 0, of: { seed in CardFlowSimulator.DESFireCard(seed: seed) },
            isExpected: { _ in false }, session: Self.session)
        #expect(report.successes == 50, "\(report)")
    }
}
