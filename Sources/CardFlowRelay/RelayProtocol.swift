import CardFlow
import Foundation

/// The JSON messages of the relay protocol, version 1 (docs/relay-protocol.md).
///
/// Every message is one WebSocket text frame holding one JSON object with `"v": 1` and `"type"`.
/// The service sends `apdu` (with ids 1, 2, 3, …), `progress`, `done` or `failed`; the client sends
/// `hello`, `response` (echoing the APDU id), `cardLost`, `cardReset`, `cancel` and `error`.
public enum RelayProtocol {
    public static let version = 1
}

/// What the client (this library) sends to the service.
public enum RelayClientMessage: Sendable, Hashable {
    /// First message: the card's identity and the gate SELECT's answer (data and status word).
    case hello(uid: [UInt8]?, atr: [UInt8], aid: [UInt8], selectAnswer: [UInt8], limits: RelayLimits)
    /// The card's answer (data and status word) to APDU `id`.
    case response(id: Int, answer: [UInt8])
    /// The card left; APDU `id` (when one was in flight) got no answer.
    case cardLost(id: Int?)
    /// The same card is back, freshly powered: nothing is selected or authenticated any more.
    case cardReset(uid: [UInt8]?, atr: [UInt8])
    /// The user cancelled the sync.
    case cancel(reason: String)
    /// The client gives up (limits, protocol violation, card gone for good).
    case error(reason: String)

    /// The message as JSON text (keys sorted, absent fields left out).
    public func encoded() -> String {
        var envelope = ClientEnvelope(v: RelayProtocol.version)
        switch self {
        case .hello(let uid, let atr, let aid, let selectAnswer, let limits):
            envelope.type = "hello"
            envelope.uid = uid?.hexString
            envelope.atr = atr.hexString
            envelope.aid = aid.hexString
            envelope.select = selectAnswer.hexString
            envelope.limits = .init(maxAPDUSize: limits.maxAPDUSize, maxAPDUs: limits.maxAPDUs)
        case .response(let id, let answer):
            envelope.type = "response"
            envelope.id = id
            envelope.response = answer.hexString
        case .cardLost(let id):
            envelope.type = "cardLost"
            envelope.id = id
        case .cardReset(let uid, let atr):
            envelope.type = "cardReset"
            envelope.uid = uid?.hexString
            envelope.atr = atr.hexString
        case .cancel(let reason):
            envelope.type = "cancel"
            envelope.reason = reason
        case .error(let reason):
            envelope.type = "error"
            envelope.reason = reason
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        // Strings and integers only: encoding cannot fail.
        let data = (try? encoder.encode(envelope)) ?? Data("{}".utf8)
        return String(decoding: data, as: UTF8.self)
    }
}

/// What the service may send. Nothing else is accepted: the service can only make the client
/// send APDUs to the card, report progress and end the sync.
public enum RelayServiceMessage: Sendable, Hashable {
    case apdu(id: Int, command: CommandAPDU)
    case progress(Double)
    case done(message: String?)
    case failed(reason: String)

    /// Parses and validates one text message against the limits.
    public init(parsing text: String, limits: RelayLimits) throws(RelayProtocolViolation) {
        guard text.utf8.count <= limits.maxMessageSize else { throw .messageTooLarge }
        let envelope: ServiceEnvelope
        do {
            envelope = try JSONDecoder().decode(ServiceEnvelope.self, from: Data(text.utf8))
        } catch let DecodingError.typeMismatch(_, context) {
            throw .malformedMessage("wrong type for '\(context.codingPath.map(\.stringValue).joined(separator: "."))'")
        } catch {
            throw .malformedMessage("not a JSON object of the protocol")
        }
        guard let version = envelope.v else { throw .malformedMessage("no 'v'") }
        guard version == RelayProtocol.version else { throw .unsupportedVersion(version) }
        guard let type = envelope.type else { throw .malformedMessage("no 'type'") }
        switch type {
        case "apdu":
            guard let id = envelope.id else { throw .missingField(type: type, field: "id") }
            guard let hex = envelope.apdu else { throw .missingField(type: type, field: "apdu") }
            // Checked before decoding so that a huge APDU costs nothing.
            let size = hex.utf8.count / 2
            guard size <= limits.maxAPDUSize else { throw .apduTooLarge(id: id, size: size, limit: limits.maxAPDUSize) }
            let bytes: [UInt8]
            do {
                bytes = try [UInt8](hex: hex)
            } catch {
                throw .invalidAPDU(id: id, reason: error.description)
            }
            guard bytes.count <= limits.maxAPDUSize else {
                throw .apduTooLarge(id: id, size: bytes.count, limit: limits.maxAPDUSize)
            }
            do {
                self = .apdu(id: id, command: try CommandAPDU(bytes: bytes))
            } catch {
                throw .invalidAPDU(id: id, reason: error.description)
            }
        case "progress":
            guard let fraction = envelope.fraction else { throw .missingField(type: type, field: "fraction") }
            guard fraction.isFinite, (0...1).contains(fraction) else { throw .invalidProgress(fraction) }
            self = .progress(fraction)
        case "done":
            self = .done(message: envelope.message)
        case "failed":
            guard let reason = envelope.reason else { throw .missingField(type: type, field: "reason") }
            self = .failed(reason: reason)
        default:
            throw .unknownType(type)
        }
    }

}

/// The fields a client message may carry; nil fields are left out of the JSON.
private struct ClientEnvelope: Encodable {
    struct Limits: Encodable {
        let maxAPDUSize: Int
        let maxAPDUs: Int
    }

    let v: Int
    var type: String?
    var id: Int?
    var uid: String?
    var atr: String?
    var aid: String?
    var select: String?
    var limits: Limits?
    var response: String?
    var reason: String?
}

/// The fields a service message may carry; types are checked by the decoder.
private struct ServiceEnvelope: Decodable {
    let v: Int?
    let type: String?
    let id: Int?
    let apdu: String?
    let fraction: Double?
    let message: String?
    let reason: String?
}
