/// A reader selector that cannot be parsed.
public enum ReaderSelectorError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The text is not a selector; `reason` says what is wrong with it when it looked like one,
    /// and `sourceForms` are the forms of the reader sources the parser was given (the message
    /// lists them after the built-in ones).
    case invalid(String, reason: String?, sourceForms: [String] = [])

    /// The forms the built-in backends take, as the message lists them.
    static let builtInForms = [
        "usb", "usb:VVVV:PPPP (hex)", "usb:BUS:DEV", "usb:serial=XYZ", "vpcd[:HOST][:PORT]", "pcsc[:NAME-PREFIX]",
    ]

    public var description: String {
        switch self {
        case .invalid(let text, let reason, let sourceForms):
            let forms = Self.builtInForms + sourceForms
            return "invalid reader selector '\(text.prefix(200))'\(reason.map { " (\($0))" } ?? ""); use "
                + forms.dropLast().joined(separator: ", ") + ", or " + forms[forms.count - 1]
        }
    }
}
