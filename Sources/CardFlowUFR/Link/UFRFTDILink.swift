import Logging

/// A ``UFRLink`` to a USB uFR reader through its FTDI chip, in user space with libftdi1: the
/// kernel's `ftdi_sio` is detached from the device, so no `/dev/ttyUSB*` is involved.
///
/// Opening finds 0403:6001 (by its USB serial string when given), resets the chip, flushes
/// both of its buffers and sets the line (``UFRFTDIOptions``). Every libftdi call runs on a
/// thread the link owns, never on Swift's cooperative pool. libftdi's read never waits for
/// data (it returns what one USB transfer brought, paced by the chip's latency timer), so the
/// link reads only in a window after each send and sleeps in between: an idle reader costs
/// no USB traffic and no CPU.
///
/// Each USB read or write is bounded (``UFRFTDIOptions/transferTimeout``, the write by
/// 1 s): ``close()`` returns within that bound, and a caller cancelled mid-exchange is
/// released by ``UFRConnection`` at once while the transfer in flight ends within it.
///
/// ```swift
/// let link = try await UFRFTDILink.open(options: UFRFTDIOptions(serial: "UN123456"), logger: logger)
/// let connection = UFRConnection(link: link, logger: logger)
/// ```
public struct UFRFTDILink: UFRLink {
    public let endpoint: String
    public var isDatagram: Bool { false }
    public let incoming: AsyncStream<UFRLinkEvent>
    private let worker: UFRFTDIWorker

    /// Opens and sets up the reader's FTDI chip.
    ///
    /// - Parameters:
    ///   - options: which device, and how its line is set.
    ///   - logger: the set-up steps and the read windows are logged at trace.
    /// - Throws: ``UFRError/connectionFailed(endpoint:reason:)`` with libftdi's reason (no such
    ///   device, no permission, a set-up step refused).
    public static func open(options: UFRFTDIOptions = UFRFTDIOptions(), logger: Logger) async throws -> UFRFTDILink {
        let endpoint = options.serial.map { "usb:\($0)" } ?? "usb"
        let (stream, continuation) = AsyncStream.makeStream(of: UFRLinkEvent.self)
        let worker = UFRFTDIWorker(endpoint: endpoint, options: options, events: continuation, logger: logger)
        try await withCheckedThrowingContinuation { (opened: CheckedContinuation<Void, any Error>) in
            worker.start(opened: opened)
        }
        return UFRFTDILink(endpoint: endpoint, incoming: stream, worker: worker)
    }

    private init(endpoint: String, incoming: AsyncStream<UFRLinkEvent>, worker: UFRFTDIWorker) {
        self.endpoint = endpoint
        self.incoming = incoming
        self.worker = worker
    }

    public func send(_ bytes: [UInt8]) async throws {
        try await worker.write(bytes)
    }

    public func close() async {
        await worker.close()
    }
}
