/// A running watch on pcscd (card presence, or readers coming and going): its updates, and a
/// ``stop()`` that returns only once the watch's `SCardGetStatusChange` has ended and its
/// context is released.
///
/// Stopping the iteration also ends the watch, but without waiting for it. A program that exits
/// must ``stop()`` its watches first: libpcsclite's destructors run at exit, and a watch thread
/// still inside libpcsclite then (in `SCardCancel`, `SCardReleaseContext`) crashes the process.
public struct PCSCWatch<Element: Sendable>: Sendable {
    /// The updates; the stream finishes when the watch stops, or throws ``PCSCError`` when
    /// pcscd or the reader goes away.
    public let updates: AsyncThrowingStream<Element, any Error>
    private let task: Task<Void, Never>

    init(updates: AsyncThrowingStream<Element, any Error>, task: Task<Void, Never>) {
        self.updates = updates
        self.task = task
    }

    /// Ends the watch and waits until nothing of it is inside libpcsclite any more.
    public func stop() async {
        task.cancel()
        await task.value
    }
}
