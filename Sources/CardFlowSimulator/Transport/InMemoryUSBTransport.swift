import CardFlowCCIDProtocol

/// A ``/CardFlowCCIDProtocol/USBTransport`` wired straight to a ``VirtualCCIDReader``: no USB, no kernel, the same
/// driver code. Used by tests, benchmarks and `cardctl --reader sim`.
public struct InMemoryUSBTransport: USBTransport {
    public let reader: VirtualCCIDReader

    public init(reader: VirtualCCIDReader) {
        self.reader = reader
    }

    public nonisolated(nonsending) func bulkOut(_ data: consuming [UInt8], timeout: Duration)
        async throws(USBTransportError)
    {
        if Task.isCancelled { throw .cancelled }
        try await reader.receiveBulkOut(consume data)
    }

    /// Hands the simulated reader the storage the host lends for the answer (``/CardFlowCCIDProtocol/USBBulkInRead/storage``).
    public nonisolated(nonsending) func bulkOut(
        _ data: consuming [UInt8], timeout: Duration, readingAhead read: consuming USBBulkInRead
    ) async throws(USBTransportError) {
        if Task.isCancelled { throw .cancelled }
        // Swapped out, not copied: the reader must get the only reference to write into it.
        var storage: [UInt8] = []
        swap(&storage, &read.storage)
        try await reader.receiveBulkOut(consume data, answerStorage: consume storage)
    }

    public nonisolated(nonsending) func bulkIn(maxLength: Int, timeout: Duration) async throws(USBTransportError)
        -> [UInt8]
    {
        try await reader.nextBulkIn(maxLength: maxLength, timeout: timeout)
    }

    public nonisolated(nonsending) func interruptIn(maxLength: Int, timeout: Duration) async throws(USBTransportError)
        -> [UInt8]
    {
        try await reader.nextInterrupt(maxLength: maxLength, timeout: timeout)
    }

    public nonisolated(nonsending) func control(_ request: USBControlRequest, timeout: Duration)
        async throws(USBTransportError) -> [UInt8]
    {
        try await reader.control(request)
    }
}
