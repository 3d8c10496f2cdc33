/// A JSON value rendered compactly with keys in the order given, as the seed's JSON shapes are
/// compared byte for byte.
///
/// ```swift
/// TONJSON.success("done")     // {"message":"done","status":"ok"}
/// ```
public indirect enum TONJSON: Sendable, Equatable {
    case string(String)
    case number(Int)
    case bool(Bool)
    case array([TONJSON])
    case object([(String, TONJSON)])

    /// `{"message":<message>,"status":"ok"}`.
    public static func success(_ message: String) -> String {
        object([("message", .string(message)), ("status", .string("ok"))]).rendered
    }

    /// `{"message":[…],"status":"ok"}` for a list message.
    public static func success(_ message: [String]) -> String {
        object([("message", .array(message.map(TONJSON.string))), ("status", .string("ok"))]).rendered
    }

    /// The compact JSON text.
    public var rendered: String {
        var text = ""
        write(to: &text)
        return text
    }

    private func write(to text: inout String) {
        switch self {
        case .string(let value): Self.writeString(value, to: &text)
        case .number(let value): text += String(value)
        case .bool(let value): text += value ? "true" : "false"
        case .array(let values):
            text += "["
            for (index, value) in values.enumerated() {
                if index > 0 { text += "," }
                value.write(to: &text)
            }
            text += "]"
        case .object(let fields):
            text += "{"
            for (index, field) in fields.enumerated() {
                if index > 0 { text += "," }
                Self.writeString(field.0, to: &text)
                text += ":"
                field.1.write(to: &text)
            }
            text += "}"
        }
    }

    private static func writeString(_ value: String, to text: inout String) {
        text += "\""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": text += "\\\""
            case "\\": text += "\\\\"
            case "\n": text += "\\n"
            case "\r": text += "\\r"
            case "\t": text += "\\t"
            case let control where control.value < 0x20:
                let hex = String(control.value, radix: 16)
                text += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: text.unicodeScalars.append(scalar)
            }
        }
        text += "\""
    }

    public static func == (lhs: TONJSON, rhs: TONJSON) -> Bool {
        lhs.rendered == rhs.rendered
    }
}
