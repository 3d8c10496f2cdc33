/// A status word SW1-SW2 as an error value inside card models (internal).
struct StatusWord: Error, Sendable, Hashable {
    let value: UInt16
    init(_ value: UInt16) { self.value = value }
}
