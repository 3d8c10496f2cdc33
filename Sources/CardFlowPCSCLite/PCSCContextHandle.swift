import CCardFlowPCSCLite

/// Establishing and releasing a raw `SCARDCONTEXT`, and listing readers through one: the calls
/// ``PCSCContext`` and the status watchers share. Callers run them on their own PC/SC thread.
enum PCSCContextHandle {
    /// A generous cap on a reader list's size (pcsc-lite serves 16 readers of at most 128 bytes).
    static let maximumReaderListLength = 64 * 1024

    static func establish() throws(PCSCError) -> SCARDCONTEXT {
        var context: SCARDCONTEXT = 0
        try PCSCError.check(SCardEstablishContext(UInt(SCARD_SCOPE_SYSTEM), nil, nil, &context), .establishContext)
        return context
    }

    static func release(_ context: SCARDCONTEXT) throws(PCSCError) {
        try PCSCError.check(SCardReleaseContext(context), .releaseContext)
    }

    /// The reader names, or an empty list when there are none (`SCARD_E_NO_READERS_AVAILABLE`).
    static func readers(_ context: SCARDCONTEXT) throws(PCSCError) -> [String] {
        // The list can grow between asking its size and fetching it: try again, a bounded number of times.
        for _ in 0..<4 {
            var length: DWORD = 0
            var returnValue = SCardListReaders(context, nil, nil, &length)
            if PCSCErrorCode(returnValue: returnValue) == .noReadersAvailable { return [] }
            try PCSCError.check(returnValue, .listReaders)
            guard length > 0, length <= maximumReaderListLength else {
                throw .malformedReply(.listReaders, reason: "a reader list of \(length) bytes")
            }
            var buffer = [UInt8](repeating: 0, count: Int(length))
            var filled = length
            returnValue = buffer.withUnsafeMutableBufferPointer { bytes in
                bytes.withMemoryRebound(to: CChar.self) { SCardListReaders(context, nil, $0.baseAddress, &filled) }
            }
            switch PCSCErrorCode(returnValue: returnValue) {
            case .insufficientBuffer: continue
            case .noReadersAvailable: return []
            default: try PCSCError.check(returnValue, .listReaders)
            }
            guard filled <= length else {
                throw .responseTooLong(.listReaders, length: Int(filled), capacity: Int(length))
            }
            return try PCSCMultiString.parse(buffer.prefix(Int(filled)), call: .listReaders)
        }
        throw .failed(.listReaders, .insufficientBuffer)
    }

    /// `name` as the NUL-terminated C string pcsc-lite takes, refused when it cannot be one.
    static func readerName(_ name: String, for call: PCSCCall) throws(PCSCError) -> [CChar] {
        let bytes = Array(name.utf8)
        guard !bytes.isEmpty, !bytes.contains(0) else {
            throw .invalidArgument(call, reason: "a reader name must be non-empty and contain no NUL byte")
        }
        guard bytes.count < MAX_READERNAME else {
            throw .invalidArgument(
                call, reason: "a reader name of \(bytes.count) bytes (pcsc-lite takes fewer than \(MAX_READERNAME))")
        }
        return bytes.map { CChar(bitPattern: $0) } + [0]
    }
}
