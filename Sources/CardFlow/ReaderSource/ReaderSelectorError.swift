/// A reader selector that cannot be parsed.
public enum ReaderSelectorError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The text is not a selector; `reason` says what is wrong with it when it looked like one
    /// (a source served its scheme), and `sourceForms` are the forms of the reader sources the
    /// parser was given, which the message lists.
    case invalid(String, reason: String?, sourceForms: [String] = [])

    public var description: String {
        switch self {
        case .invalid(let text, let reason, let forms):
            let head = "invalid reader selector '\(text.prefix(200))'\(reason.map { " (\($0))" } ?? "")"
            guard let last = forms.last else { return head + "; no reader source is linked" }
            guard forms.count > 1 else { return head + "; use " + last }
            return head + "; use " + forms.dropLast().joined(separator: ", ") + ", or " + last
        }
    }
}
