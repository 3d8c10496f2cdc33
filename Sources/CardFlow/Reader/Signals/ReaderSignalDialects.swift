/// The reader families whose light and buzzer CardFlow drives through vendor commands, each a
/// ``ReaderSignalDialect`` of its own. Add a family here, as its own type.
///
/// Not here, because their vendors' LED and buzzer commands are not publicly documented:
/// HID OMNIKEY (5x22, 5x27) and Identiv (uTrust, SCL3711; their public reference manuals
/// only switch the firmware's own LED and buzzer use on or off). Their readers answer
/// ``ReaderSignalUnsupported``.
public enum ReaderSignalDialects {
    /// Every dialect, asked in order.
    public static let all: [any ReaderSignalDialect] = [
        ACR122USignalDialect(),
        ACR1252USignalDialect(),
    ]

    /// The dialect of `reader`, nil when no family claims it.
    ///
    /// - Parameter reader: the reader's identity as its backend describes it.
    public static func dialect(for reader: ReaderInfo) -> (any ReaderSignalDialect)? {
        all.first { $0.applies(to: reader) }
    }
}
