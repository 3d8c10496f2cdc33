import CardFlow

/// Why a TON card operation failed: the card answered a status word other than `9000`, or the
/// library refused an input or a response (a code of ``TONErrorCatalogue``).
///
/// Transport and session errors (card lifted, reader gone, cancellation) are not wrapped: they
/// reach the caller as the session layer threw them.
///
/// ```swift
/// do {
///     try await wallet.verifyPin(TONPin("5558"))
/// } catch let error as TONError {
///     print(error.json)   // {"message":"Incorrect PIN (from Ton wallet applet).","status":"fail","errorCode":"6F07",…}
/// }
/// ```
public enum TONError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The card answered `status` to `command`; `instruction` is nil for CoinManager commands.
    case card(status: StatusWord, instruction: TONInstruction?, command: CommandAPDU)
    /// A library error: `code` from the catalogue, `detail` appended to its message.
    case library(code: Int, detail: String = "")

    /// The status word of a card error.
    public var statusWord: StatusWord? {
        if case .card(let status, _, _) = self { return status }
        return nil
    }

    /// The library error code (nil for card errors).
    public var code: Int? {
        if case .library(let code, _) = self { return code }
        return nil
    }

    /// The seed's message: the status word text, or the catalogue text plus detail.
    public var message: String {
        switch self {
        case .card(let status, _, _): TONStatusMessages.message(for: status)
        case .library(let code, let detail): (TONErrorCatalogue.message(for: code) ?? "Unknown error.") + detail
        }
    }

    /// The error type id (0 for card errors).
    public var typeId: Int {
        switch self {
        case .card: 0
        case .library(let code, _): TONErrorCatalogue.typeId(of: code)
        }
    }

    public var description: String {
        switch self {
        case .card(let status, let instruction, _):
            "card error \(status.hexString)\(instruction.map { " to \($0.name)" } ?? ""): \(message)"
        case .library(let code, _):
            "error \(code): \(message)"
        }
    }

    /// The seed's JSON for this error (section 7.2).
    public var json: String {
        switch self {
        case .card(let status, let instruction, let command):
            var fields: [(String, TONJSON)] = [
                ("message", .string(message)), ("status", .string("fail")), ("errorCode", .string(status.hexString)),
                ("errorTypeId", .string("0")), ("errorType", .string(TONErrorCatalogue.typeName(of: 0))),
            ]
            if let instruction { fields.append(("cardInstruction", .string(instruction.name))) }
            fields.append(("apdu", .string(Self.formatted(command))))
            return TONJSON.object(fields).rendered
        case .library(let code, _):
            return TONJSON.object([
                ("message", .string(message)), ("status", .string("fail")), ("errorCode", .string(String(code))),
                ("errorTypeId", .string(String(typeId))),
                ("errorType", .string(TONErrorCatalogue.typeName(of: typeId))),
            ]).rendered
        }
    }

    /// The seed's rendering of a failed APDU: `"B0 A2 00 00 44 <DATA> FFFFFFFF "` — header, Lc
    /// and data when there is data, then Le (`FFFFFFFF` when absent, `100` for 256), and a space.
    ///
    /// Data bytes that `redaction` hides (by default the PINs, the activation password, keychain
    /// keys and recovery data of ``TONWallet/redaction``) are shown as `**`: error JSON ends up in
    /// logs and terminals, where the seed's clear-text APDU leaked them.
    public static func formatted(_ command: CommandAPDU, redaction: APDURedaction = TONWallet.redaction) -> String {
        var text = [command.cla, command.ins, command.p1, command.p2].spacedHexString + " "
        if !command.data.isEmpty {
            text +=
                [UInt8(truncatingIfNeeded: command.data.count)].hexString + " "
                + redactedHex(command.data, hiding: redaction.ranges(for: command).commandData) + " "
        }
        if let le = command.le {
            text += le < 256 ? [UInt8(le)].hexString : String(le, radix: 16, uppercase: true)
        } else {
            text += "FFFFFFFF"
        }
        return text + " "
    }

    /// Upper-case hex of `data` without spaces, `**` for each byte inside `hidden`.
    static func redactedHex(_ data: [UInt8], hiding hidden: [Range<Int>]) -> String {
        guard hidden.contains(where: { $0.overlaps(data.indices) }) else { return data.hexString }
        return data.indices.map { index in
            hidden.contains { $0.contains(index) } ? "**" : [data[index]].hexString
        }.joined()
    }
}
