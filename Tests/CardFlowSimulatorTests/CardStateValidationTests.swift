import CardFlowSimulator
import Foundation
import Testing

/// State files are written by the simulator but can be edited by anyone: a value the model
/// could never reach is refused as ``CardStateError/corrupt(path:reason:)`` and the file is left
/// as it was. Each tampering below used to load and then trap in the model (a division by
/// zero, an index or a `UInt8` conversion) on the first command.
@Suite("Card state files with values no card has")
struct CardStateValidationTests {
    /// Saves `card`, changes its JSON with `tamper`, and expects loading to be refused.
    func expectRefused<Card: PersistentVirtualCard>(
        _ card: Card, _ tamper: (inout [String: Any]) -> Void,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("cardstate-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("card.json").path
        let store = CardStateStore(path: path)
        try store.save(card)
        #expect(throws: Never.self, sourceLocation: sourceLocation) { _ = try store.load(Card.self) }
        var object = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any])
        var inner = try #require(object["card"] as? [String: Any])
        tamper(&inner)
        object["card"] = inner
        let tampered = try JSONSerialization.data(withJSONObject: object)
        try tampered.write(to: URL(fileURLWithPath: path))
        do {
            _ = try store.load(Card.self)
            Issue.record("the tampered state loaded", sourceLocation: sourceLocation)
        } catch {
            guard case .corrupt = error else {
                Issue.record("\(error) is not .corrupt", sourceLocation: sourceLocation)
                return
            }
        }
        #expect(
            try Data(contentsOf: URL(fileURLWithPath: path)) == tampered, "the file must be left untouched",
            sourceLocation: sourceLocation)
    }

    @Test func type2Memory() throws {
        let tag = NDEFType2Tag(seed: 1)
        try expectRefused(tag) { $0["memory"] = [Int]() }
        try expectRefused(tag) { $0["memory"] = Array(repeating: 0, count: 12) }
        try expectRefused(tag) { $0["memory"] = Array(repeating: 0, count: 16 + 2048) }
        try expectRefused(tag) { $0["uid"] = [1, 2] }
    }

    @Test func type4Sizes() throws {
        let tag = NDEFType4Tag(seed: 1)
        try expectRefused(tag) { $0["ndefFile"] = [0] }
        try expectRefused(tag) { $0["ndefFile"] = Array(repeating: 0, count: 70_000) }
        try expectRefused(tag) { $0["maxResponseData"] = 70_000 }
        try expectRefused(tag) { $0["maxCommandData"] = -1 }
        try expectRefused(tag) { $0["uid"] = [Int]() }
    }

    @Test func iso15693Geometry() throws {
        let tag = SimulatedISO15693Tag(seed: 1)
        try expectRefused(tag) { $0["blockSize"] = 0 }
        try expectRefused(tag) { $0["blocks"] = [[Int]]() }
        try expectRefused(tag) { $0["blocks"] = Array(repeating: [1, 2, 3, 4], count: 300) }
        try expectRefused(tag) { $0["blocks"] = [[1, 2, 3, 4], [1, 2]] }
        try expectRefused(tag) { $0["uid"] = [0xE0] }
        try expectRefused(tag) { $0["lockedBlocks"] = [-1] }
    }

    @Test func desfireStructure() throws {
        let card = DESFireCard(seed: 1)
        try expectRefused(card) { $0["realUID"] = [Int]() }
        try expectRefused(card) { $0["productionBatch"] = [1] }
        try expectRefused(card) { state in
            var picc = state["picc"] as! [String: Any]
            var keys = picc["keys"] as! [[String: Any]]
            keys[0]["bytes"] = [1, 2, 3]
            picc["keys"] = keys
            state["picc"] = picc
        }
        try expectRefused(card) { $0["allocatedMemory"] = -5 }
        try expectRefused(card) { state in
            let application: [String: Any] = [
                "aid": 1, "keySettings": 15, "keyType": 0, "keys": [[String: Any]](),
                "files": [
                    [
                        "number": 1, "type": 3, "communication": 0, "accessRights": ["raw": 0xEEEE], "data": [Int](),
                        "recordState": ["recordSize": 0, "maxRecords": 4, "records": [[Int]]()],
                    ]
                ],
            ]
            state["applications"] = [application]
        }
        try expectRefused(card) { state in
            let application: [String: Any] = [
                "aid": 1, "keySettings": 15, "keyType": 0, "keys": [[String: Any]](),
                "files": [
                    [
                        "number": 2, "type": 2, "communication": 0, "accessRights": ["raw": 0xEEEE], "data": [Int](),
                        "valueState": [
                            "lower": 10, "upper": 0, "value": 5, "limitedCreditEnabled": false, "limitedCreditValue": 0,
                        ],
                    ]
                ],
            ]
            state["applications"] = [application]
        }
        try expectRefused(card) { state in
            let application: [String: Any] = [
                "aid": 1, "keySettings": 15, "keyType": 0, "keys": [[String: Any]](), "files": [[String: Any]](),
            ]
            state["applications"] = Array(repeating: application, count: 2)
        }
    }

    /// What the simulator itself saves still loads (the checks refuse only the impossible).
    @Test func savedStatesOfUsedCardsLoad() async throws {
        let setups = ["sim:desfire", "sim:ndef4", "sim:type2", "sim:iso15693,ndef,locked=3+200"]
        for selector in setups {
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
                "cardstate-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: directory) }
            let spec = try SimulatorSpecification(
                parsing: selector + ",state=" + directory.appendingPathComponent("card.json").path)
            let setup = try await SimulatorSetup(specification: spec)
            try await setup.saveCardState()
            _ = try await SimulatorSetup(specification: spec)
        }
    }
}
