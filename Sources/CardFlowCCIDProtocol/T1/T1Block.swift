import CardFlowHex

// T=1 block codec (ISO/IEC 7816-3 §11.3): `NAD PCB LEN INF[LEN] EDC`.
//
// The codec is structural only: it checks framing, the error detection code and that the PCB is
// one the standard defines. Whether a block makes sense at a given moment (an S(IFS) with one INF
// byte, an R-block with no INF, sequence numbers) is the protocol's business, see
// `T1HostProtocol`.

/// The error detection code (EDC) that ends every T=1 block.
///
/// The card announces CRC in the first TCi (i ≥ 3) of its ATR (bit 0 set); LRC is the default.
public enum T1Checksum: Sendable, Hashable, CaseIterable {
    /// Longitudinal redundancy check: one byte, the XOR of NAD, PCB, LEN and INF.
    case lrc
    /// Cyclic redundancy check: two bytes.
    ///
    /// Computed as openct and the pcsc-lite CCID driver do it: polynomial 0x8408 (CCITT,
    /// reflected), initial value 0xFFFF, **no** final XOR, the high byte transmitted first
    /// (this is CRC-16/MCRF4XX; "123456789" gives `6F 91`). ISO/IEC 7816-3 refers to the
    /// ISO/IEC 13239 frame check sequence, which is complemented and sent low byte first; cards
    /// using CRC are rare and no real one was available to settle which variant they expect.
    case crc

    /// Number of EDC bytes at the end of a block (1 for LRC, 2 for CRC).
    public var length: Int {
        switch self {
        case .lrc: 1
        case .crc: 2
        }
    }

    /// Computes the EDC over `bytes` (a block's prologue and information field).
    public func compute(_ bytes: some Sequence<UInt8>) -> [UInt8] {
        var encoded: [UInt8] = []
        append(edc: edc(bytes), to: &encoded)
        return encoded
    }

    /// ``compute(_:)`` as a number (LRC: the low byte; CRC: the first byte sent high), so that
    /// encoding and checking a block need no array for it.
    func edc(_ bytes: some Sequence<UInt8>) -> UInt16 {
        switch self {
        case .lrc:
            return UInt16(bytes.reduce(0, ^))
        case .crc:
            var value: UInt16 = 0xFFFF
            for byte in bytes {
                value ^= UInt16(byte)
                for _ in 0..<8 {
                    value = value & 1 == 1 ? (value >> 1) ^ 0x8408 : value >> 1
                }
            }
            return value
        }
    }

    /// Appends the EDC of `value` (``edc(_:)``) as it is sent.
    func append(edc value: UInt16, to bytes: inout [UInt8]) {
        if self == .crc { bytes.append(UInt8(truncatingIfNeeded: value >> 8)) }
        bytes.append(UInt8(truncatingIfNeeded: value))
    }

    /// Whether `bytes` end in the EDC of what comes before it, checked where they lie.
    func isEnding(of bytes: [UInt8]) -> Bool {
        guard bytes.count >= length else { return false }
        let value = edc(bytes[..<(bytes.count - length)])
        let lastMatches = bytes[bytes.count - 1] == UInt8(truncatingIfNeeded: value)
        guard self == .crc else { return lastMatches }
        return lastMatches && bytes[bytes.count - 2] == UInt8(truncatingIfNeeded: value >> 8)
    }
}

/// The error indication carried in the low nibble of an R-block's PCB.
public enum T1ReceiveReadyError: UInt8, Sendable, Hashable, CaseIterable {
    /// Error-free acknowledgement (chaining) or plain retransmission request.
    case none = 0
    /// The last block received had an EDC or parity error.
    case edcOrParity = 1
    /// Any other error (bad length, unexpected block, wrong sequence number, time-out).
    case other = 2
}

/// The function of an S-block (low five bits of its PCB).
public enum T1SupervisoryFunction: UInt8, Sendable, Hashable, CaseIterable {
    /// Resynchronisation (C0/E0); only the interface device may request it.
    case resynch = 0
    /// Information field size change (C1/E1), one INF byte: the new IFSC or IFSD.
    case ifs = 1
    /// Abort of a chain (C2/E2).
    case abort = 2
    /// Waiting time extension (C3/E3), one INF byte: the BWT multiplier.
    case waitingTimeExtension = 3
    /// VPP state error (C4/E4), from ISO/IEC 7816-3:1997; kept so such blocks decode.
    case vppError = 4
}

/// The kind of a T=1 block with the fields of its protocol control byte (PCB).
public enum T1BlockKind: Sendable, Hashable {
    /// I-block `0 N(S) M 00000`: carries APDU bytes. `sendSequence` is N(S), 0 or 1; `more` is the
    /// chaining bit.
    case information(sendSequence: UInt8, more: Bool)
    /// R-block `100 N(R) eeee`: acknowledges a chained I-block or asks for a retransmission.
    /// `sequence` is N(R), 0 or 1: the N(S) of the I-block expected next.
    case receiveReady(sequence: UInt8, error: T1ReceiveReadyError)
    /// S-block `11 R ttttt`: a request (`isResponse` false, C0…C4) or its response (E0…E4).
    case supervisory(T1SupervisoryFunction, isResponse: Bool)

    /// Decodes a PCB, rejecting every value ISO/IEC 7816-3 leaves undefined or reserved
    /// (I-block low bits set, R-block bit 6 or error codes above 2, S-block functions above 4).
    public init(protocolControlByte pcb: UInt8) throws(T1Error) {
        if pcb & 0x80 == 0 {
            guard pcb & 0x1F == 0 else { throw .unknownPCB(pcb) }
            self = .information(sendSequence: (pcb >> 6) & 1, more: pcb & 0x20 != 0)
        } else if pcb & 0x40 == 0 {
            guard pcb & 0x20 == 0, let error = T1ReceiveReadyError(rawValue: pcb & 0x0F) else {
                throw .unknownPCB(pcb)
            }
            self = .receiveReady(sequence: (pcb >> 4) & 1, error: error)
        } else {
            guard let function = T1SupervisoryFunction(rawValue: pcb & 0x1F) else {
                throw .unknownPCB(pcb)
            }
            self = .supervisory(function, isResponse: pcb & 0x20 != 0)
        }
    }

    /// The PCB for this kind. Sequence numbers other than 0 and 1 make ``T1Block/encoded(checksum:)``
    /// throw; here only their low bit is used.
    public var protocolControlByte: UInt8 {
        switch self {
        case .information(let sendSequence, let more):
            (sendSequence & 1) << 6 | (more ? 0x20 : 0)
        case .receiveReady(let sequence, let error):
            0x80 | (sequence & 1) << 4 | error.rawValue
        case .supervisory(let function, let isResponse):
            0xC0 | (isResponse ? 0x20 : 0) | function.rawValue
        }
    }

    fileprivate var sequenceNumber: UInt8? {
        switch self {
        case .information(let sendSequence, _): sendSequence
        case .receiveReady(let sequence, _): sequence
        case .supervisory: nil
        }
    }
}

/// One T=1 block: node address, kind (the PCB) and information field.
public struct T1Block: Sendable, Hashable {
    /// Largest information field a block can carry (LEN 0xFF is reserved).
    public static let maximumInformationLength = 254

    /// NAD: destination address in the low nibble, source address in the high nibble.
    public var nodeAddress: UInt8
    /// The block kind and the fields of its PCB.
    public var kind: T1BlockKind
    /// INF: APDU bytes for I-blocks, the parameter byte of S(IFS) and S(WTX), empty otherwise.
    public var information: [UInt8]

    /// Creates a block.
    public init(nodeAddress: UInt8 = 0, kind: T1BlockKind, information: [UInt8] = []) {
        self.nodeAddress = nodeAddress
        self.kind = kind
        self.information = information
    }

    /// Decodes a received block and verifies its framing and EDC.
    ///
    /// The checks run in the order a receiver needs them: size, reserved LEN, LEN against the
    /// actual size, EDC, then the PCB (so a corrupted PCB shows up as a bad EDC).
    public init(decoding bytes: [UInt8], checksum: T1Checksum) throws(T1Error) {
        let checked = try T1ReceivedBlock(checking: bytes, checksum: checksum)
        self.nodeAddress = checked.nodeAddress
        self.kind = checked.kind
        self.information = Array(bytes[checked.information])
    }

    /// Encodes the block with its EDC.
    ///
    /// Throws ``T1Error/informationTooLong(length:)`` when INF exceeds 254 bytes and
    /// ``T1Error/invalidSequenceNumber(_:)`` for an N(S) or N(R) other than 0 or 1.
    public func encoded(checksum: T1Checksum) throws(T1Error) -> [UInt8] {
        guard information.count <= Self.maximumInformationLength else {
            throw .informationTooLong(length: information.count)
        }
        if let sequence = kind.sequenceNumber, sequence > 1 {
            throw .invalidSequenceNumber(sequence)
        }
        return encodedWithoutValidation(checksum: checksum)
    }

    /// Encoding for blocks built by this module, whose INF size and sequence numbers are correct by
    /// construction (so the protocol needs no error path that cannot happen).
    func encodedWithoutValidation(checksum: T1Checksum) -> [UInt8] {
        Self.encode(nodeAddress: nodeAddress, kind: kind, information: information, checksum: checksum)
    }

    /// A block's bytes straight from its parts, so an I-block carrying a piece of a command needs
    /// no copy of that piece first: one allocation per block, reserved before the first byte.
    static func encode(
        nodeAddress: UInt8, kind: T1BlockKind, information: some Collection<UInt8>, checksum: T1Checksum
    ) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(3 + information.count + checksum.length)
        encode(nodeAddress: nodeAddress, kind: kind, information: information, checksum: checksum, into: &bytes)
        return bytes
    }

    /// Writes a block into `bytes`, replacing what was there and keeping its capacity: a sender
    /// that keeps one buffer writes every block without allocating.
    static func encode(
        nodeAddress: UInt8, kind: T1BlockKind, information: some Collection<UInt8>, checksum: T1Checksum,
        into bytes: inout [UInt8]
    ) {
        bytes.removeAll(keepingCapacity: true)
        bytes.append(nodeAddress)
        bytes.append(kind.protocolControlByte)
        bytes.append(UInt8(truncatingIfNeeded: information.count))
        bytes += information
        checksum.append(edc: checksum.edc(bytes), to: &bytes)
    }
}

/// What can go wrong with T=1: malformed blocks (codec), failed exchanges (protocol) and misuse
/// of ``T1HostProtocol``.
public enum T1Error: Error, Sendable, Hashable, CustomStringConvertible {
    // MARK: Codec

    /// Fewer bytes than NAD, PCB, LEN and the EDC need.
    case blockTooShort(length: Int, minimum: Int)
    /// LEN is 0xFF, which ISO/IEC 7816-3 reserves.
    case reservedLength
    /// LEN does not match the number of INF bytes actually present.
    case lengthMismatch(declared: Int, actual: Int)
    /// The EDC at the end of the block is wrong.
    case checksumMismatch(expected: [UInt8], received: [UInt8])
    /// The PCB is not one ISO/IEC 7816-3 defines.
    case unknownPCB(UInt8)
    /// Encoding: INF longer than 254 bytes.
    case informationTooLong(length: Int)
    /// Encoding: a sequence number other than 0 or 1.
    case invalidSequenceNumber(UInt8)

    // MARK: Exchange failures (the card must be reset)

    /// Resynchronisation was tried the allowed number of times without success.
    case resynchronisationFailed(attempts: Int)
    /// The card sent S(ABORT request).
    case cardAborted
    /// The card sent S(RESYNCH request), which only the interface device may send.
    case cardRequestedResynchronisation
    /// The card did not confirm the IFSD with a matching S(IFS response).
    case ifsdNegotiationFailed(requested: UInt8)
    /// The card's chained response grew beyond the configured limit.
    case responseTooLong(limit: Int)
    /// An earlier exchange failed; reset the card and call ``T1HostProtocol/reset()`` (or try
    /// ``T1HostProtocol/beginResynchronisation()``).
    case cardResetRequired

    // MARK: Misuse

    /// ``T1HostProtocol/begin(command:)`` with an empty APDU.
    case emptyCommand
    /// An IFSD outside 1...254.
    case invalidInformationFieldSize(Int)
    /// A new exchange was begun while another one is running.
    case exchangeInProgress
    /// A block or a time-out was reported while no exchange is running.
    case noExchangeInProgress

    /// True when the T=1 state is lost and the card must be reset (power-cycled or warm reset)
    /// before the next exchange. False for codec errors and for misuse, which change nothing.
    public var requiresCardReset: Bool {
        switch self {
        case .resynchronisationFailed, .cardAborted, .cardRequestedResynchronisation,
            .ifsdNegotiationFailed, .responseTooLong, .cardResetRequired:
            true
        case .blockTooShort, .reservedLength, .lengthMismatch, .checksumMismatch, .unknownPCB,
            .informationTooLong, .invalidSequenceNumber, .emptyCommand,
            .invalidInformationFieldSize, .exchangeInProgress, .noExchangeInProgress:
            false
        }
    }

    /// A one-line explanation for logs and error messages.
    public var description: String {
        switch self {
        case .blockTooShort(let length, let minimum):
            "T=1 block too short: \(length) bytes, at least \(minimum) needed"
        case .reservedLength:
            "T=1 block with reserved LEN 0xFF"
        case .lengthMismatch(let declared, let actual):
            "T=1 block LEN \(declared) but \(actual) information bytes present"
        case .checksumMismatch(let expected, let received):
            "T=1 block EDC \(hex(received)), expected \(hex(expected))"
        case .unknownPCB(let pcb):
            "T=1 block with undefined PCB \(hex([pcb]))"
        case .informationTooLong(let length):
            "T=1 information field of \(length) bytes exceeds 254"
        case .invalidSequenceNumber(let value):
            "T=1 sequence number \(value) is not 0 or 1"
        case .resynchronisationFailed(let attempts):
            "T=1 resynchronisation failed after \(attempts) attempts; reset the card"
        case .cardAborted:
            "the card aborted the T=1 exchange (S(ABORT request)); reset the card"
        case .cardRequestedResynchronisation:
            "the card sent S(RESYNCH request); reset the card"
        case .ifsdNegotiationFailed(let requested):
            "the card did not accept IFSD \(requested); reset the card"
        case .responseTooLong(let limit):
            "the card's chained T=1 response exceeds \(limit) bytes; reset the card"
        case .cardResetRequired:
            "an earlier T=1 exchange failed; reset the card first"
        case .emptyCommand:
            "cannot send an empty APDU over T=1"
        case .invalidInformationFieldSize(let size):
            "information field size \(size) is outside 1...254"
        case .exchangeInProgress:
            "a T=1 exchange is already in progress"
        case .noExchangeInProgress:
            "no T=1 exchange is in progress"
        }
    }
}

private func hex(_ bytes: [UInt8]) -> String {
    HexFormat.string(bytes, spaced: true)
}
