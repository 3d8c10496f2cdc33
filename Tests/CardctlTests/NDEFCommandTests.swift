import Foundation
import Testing

@Suite("cardctl ndef")
struct NDEFCommandTests {
    @Test("decode --json: the URI record with identifier code 0x02 is https://www.github.com")
    func decodeJSON() async throws {
        let result = try await CardctlProcess.run(["ndef", "decode", "D1010B55026769746875622E636F6D", "--json"])
        #expect(result.status == 0, "\(result)")
        let records = try Fixtures.jsonObjects(result.stdout)
        #expect(records.count == 1)
        #expect(records.first?["tnf"] as? Int == 1)
        #expect(records.first?["type"] as? String == "55")
        #expect(records.first?["id"] as? String == "")
        #expect(records.first?["payload"] as? String == "026769746875622E636F6D")
        #expect(records.first?["uri"] as? String == "https://www.github.com")
        // --json before the subcommand means the same.
        let global = try await CardctlProcess.run(["--json", "ndef", "decode", "D1010B55026769746875622E636F6D"])
        #expect(global.status == 0, "\(global)")
        #expect(global.stdout == result.stdout)
    }

    @Test("decode prints records; Text records in JSON carry text and language")
    func decodeText() async throws {
        let text = try await CardctlProcess.run(["ndef", "decode", "d101085402656e48656c6c6f"])
        #expect(text.status == 0, "\(text)")
        #expect(
            text.stdoutLines == [
                "record 0: TNF 0x01 (well-known) type \"T\" payload 8 bytes 02656E48656C6C6F",
                "  text \"Hello\" language en UTF-8",
            ])
        let json = try await CardctlProcess.run(["ndef", "decode", "--json", "d101085402656e48656c6c6f"])
        let records = try Fixtures.jsonObjects(json.stdout)
        #expect(records.first?["text"] as? String == "Hello")
        #expect(records.first?["language"] as? String == "en")
        #expect(records.first?["uri"] == nil)
    }

    @Test("encode --uri, --text, --mime, --external print the message hex; decode reads it back")
    func encode() async throws {
        let uri = try await CardctlProcess.run(["ndef", "encode", "--uri", "https://www.github.com"])
        #expect(uri.status == 0, "\(uri)")
        #expect(uri.stdoutLines == ["D1010B55026769746875622E636F6D"])
        let text = try await CardctlProcess.run(["ndef", "encode", "--text", "Hallo", "--lang", "de"])
        #expect(text.stdoutLines == ["D101085402646548616C6C6F"])
        let mime = try await CardctlProcess.run(["ndef", "encode", "--mime", "text/plain", "--data", "6869"])
        #expect(mime.stdoutLines == ["D20A02746578742F706C61696E6869"])
        let external = try await CardctlProcess.run(["ndef", "encode", "--external", "android.com:pkg", "--data", "61"])
        #expect(external.stdoutLines == ["D40F01616E64726F69642E636F6D3A706B6761"])
        let back = try await CardctlProcess.run(["ndef", "decode", external.stdoutLines.first ?? ""])
        #expect(back.stdoutLines.last == "  android application a")
    }

    @Test("bad hex, bad NDEF and bad option combinations exit 2 with a message")
    func badInput() async throws {
        for arguments in [
            ["ndef", "decode", "D1ZZ"], ["ndef", "decode", "D1010B5502"], ["ndef", "decode", "51010155 00"],
            ["ndef", "encode", "--uri", "a:", "--text", "b"], ["ndef", "encode", "--mime", "text/plain"],
            ["ndef", "encode", "--mime", "text/plain", "--data", "XY"],
            ["ndef", "encode", "--external", "nocolon", "--data", "00"],
        ] {
            let result = try await CardctlProcess.run(arguments)
            #expect(result.status == 2, "\(result)")
            #expect(!result.stderr.isEmpty, "\(result)")
            #expect(result.stdout.isEmpty, "\(result)")
        }
        let truncated = try await CardctlProcess.run(["ndef", "decode", "D1010B5502"])
        #expect(truncated.stderrLines.first == "error: byte 4 (record 0): PAYLOAD needs 11 bytes, only 1 left")
        let lenient = try await CardctlProcess.run(["ndef", "decode", "--lenient", "51010155 00"])
        #expect(lenient.status == 0, "\(lenient)")
    }
}
