import CardFlowFleet
import Foundation
import Testing

@Suite struct FleetRecordFileTests {
    func parameters(_ record: FleetRecordInput) throws -> [String: Any] {
        try #require(JSONSerialization.jsonObject(with: Data(record.parameters)) as? [String: Any])
    }

    @Test func jsonLinesKeepReferenceAndParameters() throws {
        let text = """
            {"ref": "EMP-0001", "flow": {"text": "Alice Example", "file": 2}}

            {"ref": "EMP-0002", "flow": {"uri": "https://example.com/b"}}
            """
        let records = try FleetRecordFile.parse(text, format: .jsonLines)
        #expect(records.map(\.reference) == ["EMP-0001", "EMP-0002"])
        let first = try parameters(records[0])
        #expect(first["text"] as? String == "Alice Example")
        #expect(first["file"] as? Int == 2)
    }

    @Test(arguments: [
        (#"not json"#, "not a JSON object"),
        (#"{"flow": {}}"#, "no \"ref\""),
        (#"{"ref": "A"}"#, "no \"flow\""),
        (#"{"ref": "A", "flow": {}, "extra": 1}"#, "unknown field"),
        (#"{"ref": "A", "flow": {"kind": "apdu"}}"#, "flow kind comes from the daemon"),
        (#"{"ref": "", "flow": {}}"#, "1 to 256"),
    ])
    func badJSONLinesNameTheLine(line: String, reason: String) throws {
        let text = #"{"ref": "ok", "flow": {}}"# + "\n" + line
        #expect {
            try FleetRecordFile.parse(text, format: .jsonLines)
        } throws: { error in
            guard case .invalidRecord(let number, let message) = error as? FleetStoreError else { return false }
            return number == 2 && message.contains(reason)
        }
    }

    @Test func duplicateReferencesAreRefused() {
        let text = #"{"ref": "A", "flow": {}}"# + "\n" + #"{"ref": "A", "flow": {}}"#
        #expect(throws: FleetStoreError.invalidRecord(line: 2, reason: "ref 'A' appears twice in the file")) {
            try FleetRecordFile.parse(text, format: .jsonLines)
        }
    }

    @Test(arguments: ["key", "appKey", "masterKey", "pin", "PIN", "password", "secret", "pwd", "key_bytes", "piccKey"])
    func keyMaterialIsRefused(name: String) {
        #expect(FleetRecordFile.looksLikeKeyMaterial(name))
        let text = #"{"ref": "A", "flow": {"\#(name)": "00112233"}}"#
        #expect(throws: FleetStoreError.self) { try FleetRecordFile.parse(text, format: .jsonLines) }
    }

    @Test(arguments: [
        "keySlot", "piccKeySlot", "metaKeySlot", "pinSecret", "activationSecret", "text", "uri", "diversify",
        "systemIdentifier", "aid", "shipping",
    ])
    func slotsSecretsAndDataAreAllowed(name: String) {
        #expect(!FleetRecordFile.looksLikeKeyMaterial(name))
    }

    @Test func csvWithQuotingAndTypes() throws {
        let text =
            "ref,text,file:int,diversify:bool,note\r\n"
            + "EMP-1,\"Example, Alice\",1,true,\n"
            + "EMP-2,\"He said \"\"hi\"\"\",2,false,\"two\nlines\"\n"
        let records = try FleetRecordFile.parse(text, format: .csv)
        #expect(records.map(\.reference) == ["EMP-1", "EMP-2"])
        let first = try parameters(records[0])
        #expect(first["text"] as? String == "Example, Alice")
        #expect(first["file"] as? Int == 1)
        #expect(first["diversify"] as? Bool == true)
        #expect(first["note"] == nil)
        let second = try parameters(records[1])
        #expect(second["text"] as? String == "He said \"hi\"")
        #expect(second["note"] as? String == "two\nlines")
    }

    @Test(arguments: [
        ("text\nA\n", 1, "no 'ref' column"),
        ("ref,file:int\nA,x\n", 2, "not an integer"),
        ("ref,on:bool\nA,yes\n", 2, "not true or false"),
        ("ref,text\nA,b,c\n", 2, "3 cells"),
        ("ref,text\n\"A,b\n", 2, "not closed"),
        ("ref,x:float\n", 1, "string, int or bool"),
    ])
    func badCSVNamesTheLine(text: String, line: Int, reason: String) {
        #expect {
            try FleetRecordFile.parse(text, format: .csv)
        } throws: { error in
            guard case .invalidRecord(let number, let message) = error as? FleetStoreError else { return false }
            return number == line && message.contains(reason)
        }
    }

    @Test func formatFollowsTheExtension() {
        #expect(FleetRecordFile.Format(path: "/x/batch.CSV") == .csv)
        #expect(FleetRecordFile.Format(path: "batch.jsonl") == .jsonLines)
        #expect(FleetRecordFile.Format(path: "-") == .jsonLines)
    }
}
