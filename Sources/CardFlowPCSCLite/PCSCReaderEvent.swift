/// A reader arriving in or leaving pcscd's list, from ``PCSCContext/readerChanges()``.
public enum PCSCReaderEvent: Hashable, Sendable {
    case arrived(String)
    case departed(String)
}
