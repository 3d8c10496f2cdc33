import CardFlowCCIDProtocol

/// An XfrBlock's data as the simulated reader received it: still in the bulk-OUT message, behind
/// the header. A path that only reads it (the card's T=1 endpoint) reads it there, ``bytes``; a
/// path that keeps it takes it as an array, ``take()``, the header removed in place, so a message
/// the host handed over alone costs no copy either way (issue 40). The driver keeps its own
/// buffer for T=1 blocks, so a copy here would cost one allocation per block.
struct ReceivedTransferData {
    private var storage: [UInt8]
    private var start: Int

    /// The data of a whole bulk-OUT message (its header already checked).
    init(frame: consuming [UInt8]) {
        storage = frame
        start = ccidHeaderLength
    }

    /// Data that is already on its own.
    init(data: consuming [UInt8]) {
        storage = data
        start = 0
    }

    /// The data where it lies. Its indices are the message's: use `first`, `count` and
    /// iteration, not subscripts from 0.
    var bytes: ArraySlice<UInt8> { storage[start...] }

    /// The data as an array of its own; afterwards ``bytes`` is empty.
    mutating func take() -> [UInt8] {
        var data: [UInt8] = []
        swap(&data, &storage)
        data.removeSubrange(0..<start)
        start = 0
        return data
    }
}
