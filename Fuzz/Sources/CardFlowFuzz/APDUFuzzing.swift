import CardFlow

@testable import CardFlowSimulator
@testable import CardFlowSimulatorCards
#if canImport(FuzzSupport)
import FuzzSupport
#endif

/// Command and response APDUs, from bytes and from hex text (relay messages, CLI arguments,
/// configuration files carry APDUs as hex).
enum APDUFuzzing {
    /// The client's parser round-trips, and agrees with the card models' independent parser.
    static func command(_ bytes: [UInt8]) {
        hexText(bytes)
        let card = ISO7816CommandAPDU(parsing: bytes)
        guard let command = try? CommandAPDU(bytes: bytes) else { return }
        fuzzCheck(command.data.count <= CommandAPDU.maxDataCount, "\(command.data.count) data bytes")
        if let le = command.le {
            fuzzCheck((1...CommandAPDU.maxExpectedLength).contains(le), "Le \(le)")
        }
        let again = try? CommandAPDU(bytes: command.encoded())
        fuzzCheck(again == command, "CommandAPDU does not survive encode/parse: \(command)")
        let extended = try? CommandAPDU(bytes: command.encoded(forceExtendedLength: true))
        fuzzCheck(extended == command, "CommandAPDU does not survive extended encode/parse: \(command)")
        if let card {
            fuzzCheck(
                card.cla == command.cla && card.ins == command.ins && card.p1 == command.p1 && card.p2 == command.p2
                    && card.data == command.data && card.ne == command.le,
                "client and card models parse \(bytes) differently")
        }
    }

    /// Responses split into data and status word and join back.
    static func response(_ bytes: [UInt8]) {
        hexText(bytes)
        guard let response = try? ResponseAPDU(bytes: bytes) else { return }
        fuzzCheck(response.encoded() == bytes, "ResponseAPDU does not encode back to its bytes")
        let fromHex = try? ResponseAPDU(hex: response.description)
        fuzzCheck(fromHex == response, "ResponseAPDU does not survive its own hex text")
    }

    /// The input as text: the hex parser either fails or yields bytes whose hex reads back the same.
    private static func hexText(_ bytes: [UInt8]) {
        let text = String(decoding: bytes, as: UTF8.self)
        _ = try? CommandAPDU(hex: text)
        guard let parsed = try? [UInt8](hex: text) else { return }
        fuzzCheck(parsed.count <= text.utf8.count / 2, "\(parsed.count) bytes from \(text.utf8.count) characters")
        let again = try? [UInt8](hex: parsed.hexString)
        fuzzCheck(again == parsed, "hex text does not round-trip")
    }
}
