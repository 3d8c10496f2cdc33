import CardFlow
import CardFlowDESFire
import CardFlowRelay
import Foundation
import Testing

@testable import cardctl

/// cardctl's `--json` answers come from `Encodable` output types: the text is what the
/// hand-built JSON printed before (keys in the same order, `null` where it printed `null`,
/// fractions as Swift prints them).
@Suite("cardctl JSON output")
struct JSONOutputTests {
    static func text(_ value: some Encodable) throws -> String { try KeyOrderedJSONEncoder().encode(value) }

    @Test("keys come in the order the type encodes them, nested values too")
    func keyOrder() throws {
        struct Inner: Encodable {
            let zulu: Int
            let alpha: [String]
        }
        struct Outer: Encodable {
            let yankee: Bool
            let bravo: Inner
            let omitted: Int?
            @NullIfAbsent var nothing: Int?
            let xray: Double
        }
        let value = Outer(yankee: true, bravo: Inner(zulu: -3, alpha: ["a", "b"]), omitted: nil, nothing: nil, xray: 1)
        // Repeated: Foundation's JSONEncoder on Linux would change the order from run to run.
        for _ in 0..<20 {
            #expect(
                try Self.text(value)
                    == #"{"yankee":true,"bravo":{"zulu":-3,"alpha":["a","b"]},"nothing":null,"xray":1.0}"#)
        }
    }

    @Test("strings are escaped, slashes left alone")
    func escaping() throws {
        #expect(try Self.text(["a/b \"q\" \\ é\n\t"]) == #"["a/b \"q\" \\ é\n\t"]"#)
        #expect(try Self.text(DESFireOutput.UID(uid: "04A1")) == #"{"uid":"04A1"}"#)
    }

    @Test("a number JSON cannot hold is an error, not bad JSON")
    func nonFinite() {
        #expect(throws: EncodingError.self) { try Self.text([Double.nan]) }
    }

    @Test("flow events: the names and fields the provisioning answers always had")
    func flowEvents() throws {
        let identity = CardIdentity(atr: [0x3B, 0x81], uid: [0x04, 0xC1], key: [0x04, 0xC1])
        let events: [(FlowEvent, String)] = [
            (.waitingForCard, #"{"event":"waitingForCard"}"#),
            (.connected(identity), #"{"event":"connected","card":"\#(identity)"}"#),
            (
                .stepStarted(index: 0, total: 7, name: "authenticate PICC"),
                #"{"event":"stepStarted","index":0,"total":7,"name":"authenticate PICC"}"#
            ),
            (
                .stepFinished(index: 6, total: 7, name: "read"),
                #"{"event":"stepFinished","index":6,"total":7,"name":"read"}"#
            ),
            (
                .retrying(index: 2, attempt: 1, reason: "timeout"),
                #"{"event":"retrying","index":2,"attempt":1,"reason":"timeout"}"#
            ),
            (.cardLost(index: 3), #"{"event":"cardLost","index":3}"#),
            (.wrongCard(identity), #"{"event":"wrongCard","card":"\#(identity)"}"#),
            (.resumed(index: 3), #"{"event":"resumed","index":3}"#),
            (.progress(0.5), #"{"event":"progress","fraction":0.5}"#),
            (.progress(1), #"{"event":"progress","fraction":1.0}"#),
            (.completed, #"{"event":"completed"}"#),
            (.failed("gone"), #"{"event":"failed","reason":"gone"}"#),
        ]
        for (event, expected) in events { #expect(try Self.text(EventOutput(event)) == expected) }
    }

    @Test("relay events share the flow events' names and fields")
    func relayEvents() throws {
        let identity = CardIdentity(atr: [0x3B, 0x81], uid: [0x04, 0xC1], key: [0x04, 0xC1])
        let events: [(RelayEvent, String)] = [
            (.waitingForCard, #"{"event":"waitingForCard"}"#),
            (.admitted(identity, aid: [0xD2, 0x76]), #"{"event":"admitted","card":"\#(identity)","aid":"D276"}"#),
            (.syncing(nil), #"{"event":"syncing"}"#),
            (.syncing(0.25), #"{"event":"syncing","progress":0.25}"#),
            (.cardLost, #"{"event":"cardLost"}"#),
            (.wrongCard(identity), #"{"event":"wrongCard","card":"\#(identity)"}"#),
            (.resumed, #"{"event":"resumed"}"#),
            (.completed(message: nil), #"{"event":"completed"}"#),
            (.completed(message: "done"), #"{"event":"completed","message":"done"}"#),
            (.failed("closed"), #"{"event":"failed","reason":"closed"}"#),
        ]
        for (event, expected) in events { #expect(try Self.text(EventOutput(event)) == expected) }
    }

    @Test("a failed flow: ok false, the error, the events")
    func flowFailed() throws {
        let output = FlowFailedOutput(error: "no card", events: [EventOutput(FlowEvent.waitingForCard)])
        #expect(try Self.text(output) == #"{"ok":false,"error":"no card","events":[{"event":"waitingForCard"}]}"#)
    }

    @Test("desfire answers keep their key order")
    func desfire() throws {
        #expect(
            try Self.text(DESFireOutput.FileCreated(aid: "010203", file: 1, size: 32, comm: "enc"))
                == #"{"aid":"010203","file":1,"size":32,"comm":"enc"}"#)
        let value = DESFireFileSettings(
            kind: .value(lowerLimit: -5, upperLimit: 100, limitedCreditValue: 0, limitedCreditEnabled: true),
            commMode: .plain, accessRights: DESFireAccessRights(rawValue: 0xE0F1))
        #expect(
            try Self.text(DESFireOutput.FileSettings(file: 2, settings: value))
                == #"{"file":2,"type":2,"comm":"\#(value.commMode)","access":"E0F1","lowerLimit":-5,"upperLimit":100,"limitedCreditValue":0,"limitedCreditEnabled":true}"#
        )
        let mac = DESFireFileSettings(
            kind: .transactionMAC(keyOption: 2, keyVersion: 1, counterLimit: nil), commMode: .plain,
            accessRights: DESFireAccessRights(rawValue: 0x1F00))
        #expect(
            try Self.text(DESFireOutput.FileSettings(file: 3, settings: mac))
                == #"{"file":3,"type":5,"comm":"\#(mac.commMode)","access":"1F00","keyOption":2,"keyVersion":1,"counterLimit":null}"#
        )
        #expect(
            try Self.text(DESFireOutput.FileData(Array("hi".utf8) + [0, 0])) == #"{"data":"68690000","text":"hi"}"#)
        #expect(try Self.text(DESFireOutput.FileData([0x01, 0xFF])) == #"{"data":"01FF"}"#)
    }

    @Test("ntag424 answers print absent counters as null")
    func ntag424() throws {
        #expect(
            try Self.text(
                NTAG424Output.URLVerified(
                    uid: "04AA", readCounter: 7, replayChecked: true, replayed: false, lastCounter: nil))
                == #"{"valid":true,"uid":"04AA","readCounter":7,"replayChecked":true,"replayed":false,"lastCounter":null}"#
        )
        #expect(
            try Self.text(NTAG424Output.Verified(readCounter: nil, uid: "04AA"))
                == #"{"readCounter":null,"uid":"04AA","valid":true}"#)
        #expect(try Self.text(NTAG424Output.NDEFFile(file: "00", uri: nil)) == #"{"file":"00","uri":null}"#)
        #expect(
            try Self.text(NTAG424Output.SUNEnabled(piccDataOffset: 32, macOffset: 67))
                == #"{"piccDataOffset":32,"macOffset":67}"#)
    }
}
