import CardFlowCCIDProtocol
import Synchronization

/// A CCID device that answers every message at once and does nothing else: the counterpart of
/// pcsc-lite's null IFD handler in section 7, so that `Driver-Null-*` times CardFlow's driver
/// alone, without the simulated reader's actor, card model and timing.
///
/// Written from the CCID specification (rev 1.1, §6.1–6.2), not from the simulator: IccPowerOn
/// answers a DataBlock with ``answerToReset``, IccPowerOff and GetSlotStatus a SlotStatus,
/// GetParameters / SetParameters a T=1 Parameters block, XfrBlock a DataBlock with ``answer``;
/// each answer carries the command's bSlot and bSeq. Anything else gets a SlotStatus with
/// "command not supported" (bError 0x00, bmCommandStatus failed). Benchmark-only: a read that finds
/// no answer waits for the next write, with no timeout, and there is no interrupt endpoint.
public final class NullCCIDDevice: USBTransport {
    /// The generic ATR of PC/SC part 3 for an ISO 14443-4 card: T=1, no historical bytes.
    public static let answerToReset: [UInt8] = [0x3B, 0x80, 0x80, 0x01, 0x01]

    private struct State {
        var answers: [[UInt8]] = []
        var reader: CheckedContinuation<[UInt8], Never>?
        var powered = false
    }

    private let state = Mutex(State())
    private let answer: [UInt8]

    /// - Parameter answer: what every XfrBlock gets back (response data and status word).
    public init(answer: [UInt8]) {
        self.answer = answer
    }

    public nonisolated(nonsending) func bulkOut(_ data: consuming [UInt8], timeout: Duration)
        async throws(USBTransportError)
    {
        try receive(consume data)
    }

    /// The driver's call. Implemented here rather than left to the protocol's default, which
    /// would add an async frame of its own per message to what Driver-Null counts as the
    /// driver's; this device reads nothing ahead.
    public nonisolated(nonsending) func bulkOut(
        _ data: consuming [UInt8], timeout: Duration, readingAhead read: consuming USBBulkInRead
    ) async throws(USBTransportError) {
        try receive(consume data)
    }

    private func receive(_ data: consuming [UInt8]) throws(USBTransportError) {
        let command = data
        guard command.count >= 10 else { throw USBTransportError.io("short CCID message") }
        let slot = command[5]
        let sequence = command[6]
        // The answer is made and handed to a waiting read (or queued) under one lock.
        let (reply, waiting) = state.withLock { state -> ([UInt8], CheckedContinuation<[UInt8], Never>?) in
            let reply: [UInt8]
            switch command[0] {
            case 0x62: // PC_to_RDR_IccPowerOn → RDR_to_PC_DataBlock
                state.powered = true
                reply = Self.message(0x80, slot, sequence, status: 0, chain: 0, Self.answerToReset)
            case 0x63: // PC_to_RDR_IccPowerOff → RDR_to_PC_SlotStatus, card present and inactive
                state.powered = false
                reply = Self.message(0x81, slot, sequence, status: 1, chain: 0, [])
            case 0x65: // PC_to_RDR_GetSlotStatus
                reply = Self.message(0x81, slot, sequence, status: state.powered ? 0 : 1, chain: 0, [])
            case 0x6C, 0x61, 0x6D: // GetParameters, SetParameters, ResetParameters → T=1 Parameters
                reply = Self.message(
                    0x82, slot, sequence, status: state.powered ? 0 : 1, chain: 0x01,
                    [0x11, 0x10, 0x00, 0x4D, 0x00, 0xFE, 0x00])
            case 0x6F: // PC_to_RDR_XfrBlock → RDR_to_PC_DataBlock
                reply = Self.message(0x80, slot, sequence, status: 0, chain: 0, answer)
            default: // bmCommandStatus 1 (failed), bError 0: command not supported
                reply = Self.message(0x81, slot, sequence, status: 0x40 | (state.powered ? 0 : 1), chain: 0, [])
            }
            if let reader = state.reader {
                state.reader = nil
                return (reply, reader)
            }
            state.answers.append(reply)
            return (reply, nil)
        }
        waiting?.resume(returning: reply)
    }

    public nonisolated(nonsending) func bulkIn(maxLength: Int, timeout: Duration) async throws(USBTransportError)
        -> [UInt8]
    {
        let ready = state.withLock { state -> [UInt8]? in
            state.answers.isEmpty ? nil : state.answers.removeFirst()
        }
        if let ready { return ready }
        return await withCheckedContinuation { continuation in
            let ready = state.withLock { state -> [UInt8]? in
                if state.answers.isEmpty {
                    state.reader = continuation
                    return nil
                }
                return state.answers.removeFirst()
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }

    public nonisolated(nonsending) func interruptIn(maxLength: Int, timeout: Duration) async throws(USBTransportError)
        -> [UInt8]
    {
        throw USBTransportError.noInterruptEndpoint
    }

    public nonisolated(nonsending) func control(_ request: USBControlRequest, timeout: Duration)
        async throws(USBTransportError) -> [UInt8]
    {
        throw USBTransportError.stall(endpoint: "control")
    }

    /// A reader-to-host message: the 10-byte header (§6.2) and `data`. `chain` is bChainParameter
    /// (DataBlock), bClockStatus (SlotStatus) or bProtocolNum (Parameters).
    private static func message(
        _ type: UInt8, _ slot: UInt8, _ sequence: UInt8, status: UInt8, chain: UInt8, _ data: [UInt8]
    ) -> [UInt8] {
        // One allocation of the message's size, as a null IFD handler writes into the caller's
        // buffer: a header array grown by the data was a second allocation and a copy per
        // answer, counted in Driver-Null as if it were the driver's.
        let length = UInt32(data.count)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(10 + data.count)
        bytes.append(type)
        bytes.append(UInt8(length & 0xFF))
        bytes.append(UInt8(length >> 8 & 0xFF))
        bytes.append(UInt8(length >> 16 & 0xFF))
        bytes.append(UInt8(length >> 24))
        bytes.append(slot)
        bytes.append(sequence)
        bytes.append(status)
        bytes.append(0x00)
        bytes.append(chain)
        bytes.append(contentsOf: data)
        return bytes
    }
}
