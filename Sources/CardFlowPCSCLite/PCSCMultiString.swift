/// PC/SC's multi-string (`"A\0B\0\0"`), as `SCardListReaders` fills it, parsed without trusting it.
enum PCSCMultiString {
    /// pcsc-lite's reader name limit (`MAX_READERNAME`), and a generous cap on the reader count
    /// (pcsc-lite serves at most 16 readers), so a corrupt reply cannot make us build a huge list.
    static let maximumNameLength = 128
    static let maximumCount = 256

    /// The names in `bytes`, which must be exactly the multi-string: names of 1…128 UTF-8 bytes,
    /// each NUL terminated, then one more NUL (an empty list is a single NUL).
    static func parse(_ bytes: some Collection<UInt8>, call: PCSCCall) throws(PCSCError) -> [String] {
        let bytes = Array(bytes)
        guard bytes.last == 0 else {
            throw .malformedReply(call, reason: "the list is not NUL terminated")
        }
        // A single NUL is the empty list; some implementations write two.
        if bytes.count <= 2, bytes.allSatisfy({ $0 == 0 }) { return [] }
        guard bytes.count >= 2, bytes[bytes.count - 2] == 0 else {
            throw .malformedReply(call, reason: "the list is not double-NUL terminated")
        }
        var names: [String] = []
        // Everything before the final NUL is a sequence of NUL-terminated names.
        for raw in bytes.dropLast().split(separator: 0, omittingEmptySubsequences: false).dropLast() {
            guard !raw.isEmpty else { throw .malformedReply(call, reason: "an empty name inside the list") }
            guard raw.count <= maximumNameLength else {
                throw .malformedReply(call, reason: "a name of \(raw.count) bytes, longer than \(maximumNameLength)")
            }
            guard let name = String(validating: raw, as: UTF8.self) else {
                throw .malformedReply(call, reason: "a name that is not UTF-8")
            }
            guard names.count < maximumCount else {
                throw .malformedReply(call, reason: "more than \(maximumCount) names")
            }
            names.append(name)
        }
        return names
    }
}
