/// The USB pipes of one CCID interface, as the driver sees them.
///
/// The driver in this module speaks CCID over any `USBTransport`: the libusb transport for a
/// reader on a desk, or the in-memory transport of `CardSimulator` for tests, benchmarks and the
/// demo. Implementations must honour Swift task cancellation: when the calling task is
/// cancelled, a pending transfer is cancelled and the call throws ``USBTransportError/cancelled``.
///
/// The methods are `nonisolated(nonsending)`: they run on their caller's executor, the driver's,
/// so a transfer is set up and its completion comes back without a hop to the generic executor
/// and back on every message. An implementation declared without it still conforms, with a hop.
public protocol USBTransport: Sendable {
    /// Writes one whole CCID message to the bulk-OUT endpoint. The message is handed over
    /// (`consuming`): a transport that passes it on, as the in-memory one does to its simulated
    /// reader, gives the only reference, which can be worked on in place.
    nonisolated(nonsending) func bulkOut(_ data: consuming [UInt8], timeout: Duration) async throws(USBTransportError)

    /// Reads one bulk-IN transfer (one whole CCID message, ended by a short packet) of at most
    /// `maxLength` bytes.
    nonisolated(nonsending) func bulkIn(maxLength: Int, timeout: Duration) async throws(USBTransportError) -> [UInt8]

    /// Reads one interrupt-IN transfer. Throws ``USBTransportError/noInterruptEndpoint`` when the
    /// interface has none.
    nonisolated(nonsending) func interruptIn(maxLength: Int, timeout: Duration) async throws(USBTransportError)
        -> [UInt8]

    /// Performs a control transfer on the default pipe. For device-to-host requests the answer is
    /// returned; for host-to-device requests the result is empty.
    nonisolated(nonsending) func control(_ request: USBControlRequest, timeout: Duration)
        async throws(USBTransportError) -> [UInt8]

    /// Writes one whole CCID message whose answer the caller reads next with
    /// ``bulkIn(maxLength:timeout:)``. A transport may start that read before the write has
    /// completed, so the answer meets a waiting transfer instead of a host that is still being
    /// told the write is done; the next `bulkIn` call then takes the read begun here. What the
    /// caller sees is the same as ``bulkOut(_:timeout:)`` followed by `bulkIn`: no message is
    /// lost or reordered, and the `bulkIn` call's own timeout and cancellation hold. The read is
    /// handed over (`consuming`) with the storage it lends (``USBBulkInRead/storage``). The
    /// default implementation is plain ``bulkOut(_:timeout:)``.
    nonisolated(nonsending) func bulkOut(
        _ data: consuming [UInt8], timeout: Duration, readingAhead read: consuming USBBulkInRead
    ) async throws(USBTransportError)
}

extension USBTransport {
    public nonisolated(nonsending) func bulkOut(
        _ data: consuming [UInt8], timeout: Duration, readingAhead read: consuming USBBulkInRead
    ) async throws(USBTransportError) {
        try await bulkOut(consume data, timeout: timeout)
    }
}

/// The bulk-IN read that will follow a write (see
/// ``USBTransport/bulkOut(_:timeout:readingAhead:)``).
///
/// ```swift
/// // A driver that kept the storage of an answer it has finished with lends it for the next one.
/// let read = USBBulkInRead(maxLength: 271, timeout: .seconds(5), storage: finishedAnswer)
/// try await transport.bulkOut(command, timeout: .seconds(5), readingAhead: read)
/// let answer = try await transport.bulkIn(maxLength: 271, timeout: .seconds(5))
/// ```
public struct USBBulkInRead: Sendable, Hashable {
    /// The longest message the read accepts.
    public var maxLength: Int
    /// How long the read waits for the answer, counted from the write.
    public var timeout: Duration
    /// Storage the caller lends for the answer, its contents irrelevant: a transport that builds
    /// answers in memory (the simulated reader) may write the answer into it instead of
    /// allocating one, when the caller holds no other reference. Empty when the caller has none
    /// to lend; a transport may ignore it.
    public var storage: [UInt8]

    public init(maxLength: Int, timeout: Duration, storage: [UInt8] = []) {
        self.maxLength = maxLength
        self.timeout = timeout
        self.storage = storage
    }

    /// Reads are equal when they accept the same messages for the same time: the lent storage's
    /// contents are irrelevant (see ``storage``).
    public static func == (lhs: USBBulkInRead, rhs: USBBulkInRead) -> Bool {
        lhs.maxLength == rhs.maxLength && lhs.timeout == rhs.timeout
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(maxLength)
        hasher.combine(timeout)
    }
}

/// A USB control request (the SETUP packet plus, host-to-device, its data stage).
public struct USBControlRequest: Sendable, Hashable {
    public var requestType: UInt8
    public var request: UInt8
    public var value: UInt16
    public var index: UInt16
    /// Bytes sent in the data stage (host-to-device) or the number of bytes asked for
    /// (device-to-host, `length`).
    public var data: [UInt8]
    public var length: UInt16

    public init(
        requestType: UInt8, request: UInt8, value: UInt16, index: UInt16, data: [UInt8] = [], length: UInt16 = 0
    ) {
        self.requestType = requestType
        self.request = request
        self.value = value
        self.index = index
        self.data = data
        self.length = length
    }

    /// True when the data stage flows from the device to the host (bit 7 of bmRequestType).
    public var isDeviceToHost: Bool { requestType & 0x80 != 0 }
}

/// What can go wrong on the USB side, independent of the CCID protocol.
public enum USBTransportError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The transfer did not complete within its timeout.
    case timeout(endpoint: String, after: Duration)
    /// The calling task was cancelled and the transfer was cancelled with it.
    case cancelled
    /// The endpoint stalled (the device refused the request).
    case stall(endpoint: String)
    /// The device is gone (unplugged or reset).
    case noDevice
    /// The device sent more bytes than were asked for.
    case overflow(endpoint: String)
    /// The interface has no interrupt-IN endpoint.
    case noInterruptEndpoint
    /// The interface is claimed by someone else (another process or a kernel driver).
    case busy(detail: String)
    /// The operating system refused access (permissions).
    case accessDenied(detail: String)
    /// Any other I/O failure, with the underlying description.
    case io(String)

    public var description: String {
        switch self {
        case .timeout(let endpoint, let after): "USB \(endpoint) transfer timed out after \(after)"
        case .cancelled: "USB transfer cancelled"
        case .stall(let endpoint): "USB \(endpoint) endpoint stalled"
        case .noDevice: "USB device is gone (unplugged?)"
        case .overflow(let endpoint): "USB \(endpoint) transfer overflowed its buffer"
        case .noInterruptEndpoint: "the CCID interface has no interrupt-IN endpoint"
        case .busy(let detail): "USB interface is busy: \(detail)"
        case .accessDenied(let detail): "USB access denied: \(detail)"
        case .io(let detail): "USB I/O error: \(detail)"
        }
    }
}
