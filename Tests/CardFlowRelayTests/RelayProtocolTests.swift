import CardFlow
import CardFlowRelay
import Foundation
import Testing

/// The JSON messages without a network.
@Suite("Relay protocol messages")
struct RelayProtocolTests {
    let limits = RelayLimits()

    @Test("service messages parse")
    func parses() throws {
        #expect(
            try RelayServiceMessage(
                parsing: #"{"v":1,"type":"apdu","id":3,"apdu":"00A4040007D276000085010100"}"#, limits: limits)
                == .apdu(id: 3, command: try CommandAPDU(hex: "00A4040007D276000085010100")))
        #expect(
            try RelayServiceMessage(parsing: #"{"v":1,"type":"progress","fraction":0.5}"#, limits: limits)
                == .progress(0.5))
        #expect(try RelayServiceMessage(parsing: #"{"v":1,"type":"done"}"#, limits: limits) == .done(message: nil))
        #expect(
            try RelayServiceMessage(parsing: #"{"v":1,"type":"failed","reason":"x"}"#, limits: limits)
                == .failed(reason: "x"))
    }

    @Test(
        "bad service messages are typed violations",
        arguments: [
            #"[]"#, #"{"type":"done"}"#, #"{"v":true,"type":"done"}"#, #"{"v":1}"#, #"{"v":1,"type":"failed"}"#,
            #"{"v":1,"type":"progress","fraction":-0.1}"#, #"{"v":1,"type":"apdu","id":1.5,"apdu":"00"}"#,
            #"{"v":1,"type":"apdu","id":1,"apdu":"zz"}"#, #"{"v":1,"type":"apdu","id":1,"apdu":"00A4"}"#,
            #"{"v":1,"type":"hello"}"#, "",
        ])
    func refuses(_ text: String) {
        #expect(throws: RelayProtocolViolation.self) { try RelayServiceMessage(parsing: text, limits: limits) }
    }

    @Test("an oversize message is refused before parsing")
    func oversize() {
        let text = #"{"v":1,"type":"done","message":""# + String(repeating: "x", count: limits.maxAPDUSize * 3) + #""}"#
        #expect(throws: RelayProtocolViolation.messageTooLarge) {
            try RelayServiceMessage(parsing: text, limits: limits)
        }
    }

    @Test("client messages are versioned JSON")
    func encodes() throws {
        let text = RelayClientMessage.response(id: 4, answer: [0x91, 0x00]).encoded()
        let object = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        #expect(object["v"] as? Int == 1 && object["type"] as? String == "response")
        #expect(object["id"] as? Int == 4 && object["response"] as? String == "9100")
        #expect(RelayClientMessage.cardLost(id: nil).encoded() == #"{"type":"cardLost","v":1}"#)
    }
}
