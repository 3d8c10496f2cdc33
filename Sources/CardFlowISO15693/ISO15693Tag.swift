import CardFlow

/// An ISO/IEC 15693 tag on a CCID reader: UID through PC/SC `FF CA`, blocks through PC/SC part 3
/// READ/UPDATE BINARY (`FF B0` / `FF D6`, P2 = block number), and raw ISO 15693-3 requests (system
/// information, lock) through the transparent exchange `FF C2` where the reader offers it.
///
/// ```swift
/// let data = try await reader.withSession { session in
///     let tag = ISO15693Tag(channel: session, byteOrder: .reversedPerBlock)
///     let info = try await tag.systemInformation()
///     return try await tag.readBlocks(0, count: info.blockCount)
/// }
/// ```
public struct ISO15693Tag: Sendable {
    /// How a block's bytes map to the caller's bytes. The seed's tags stored 4-byte blocks
    /// reversed: `.reversedPerBlock` turns them around on read and write.
    public enum ByteOrder: Sendable, Hashable {
        case asStored
        case reversedPerBlock
    }

    public let channel: any CardChannel
    public let byteOrder: ByteOrder
    /// How long the reader waits for the tag's answer to a raw request, sent as PC/SC part 3's
    /// timer object (`5F 46 04`, microseconds) before each one; nil leaves the reader's own
    /// timer. A write or lock programs EEPROM and may answer later than the reader's default:
    /// an ACS ACR1552 reported its time-out (`64 01`) for a write that took effect until the
    /// application sent a 1-second timer (NXP community thread 2093136).
    public let exchangeTimeout: Duration?

    public init(channel: any CardChannel, byteOrder: ByteOrder = .asStored) {
        self.init(channel: channel, byteOrder: byteOrder, exchangeTimeout: nil)
    }

    /// A tag whose raw requests carry a timer (``exchangeTimeout``).
    public init(channel: any CardChannel, byteOrder: ByteOrder = .asStored, exchangeTimeout: Duration?) {
        self.channel = channel
        self.byteOrder = byteOrder
        self.exchangeTimeout = exchangeTimeout
    }

    /// The 8-byte UID, most significant byte (E0) first.
    public func uid() async throws -> [UInt8] {
        let command = try CommandAPDU(cla: 0xFF, ins: 0xCA, p1: 0x00, p2: 0x00, le: 256)
        let response = try await channel.transmit(command)
        try response.throwIfNotSuccess(for: command)
        guard response.data.count == 8 else { throw ISO15693Error.unexpectedUID(response.data) }
        return response.data
    }

    /// GET SYSTEM INFORMATION through the transparent exchange: block size and count.
    public func systemInformation() async throws -> ISO15693SystemInformation {
        let answer = try await transceive([0x02, 0x2B])
        return try ISO15693SystemInformation(response: answer)
    }

    /// ISO 15693 addresses blocks with one byte: block numbers are 0...255.
    public static let addressableBlocks = 0...255

    /// Reads `count` blocks from `first` (READ BINARY; one block per APDU keeps within every
    /// reader's response buffer).
    ///
    /// - Throws: ``ISO15693Error/blockOutOfRange(first:count:)`` when the blocks are not all in
    ///   0...255 or `count` is negative, ``ISO15693Error/invalidBlockSize(_:)``, before any APDU.
    public func readBlocks(_ first: Int, count: Int, blockSize: Int? = nil) async throws -> [UInt8] {
        try Self.checkBlocks(first, count: count)
        let size = try await resolvedBlockSize(blockSize)
        var data: [UInt8] = []
        data.reserveCapacity(count * size)
        for block in first..<first + count {
            let command = try CommandAPDU(cla: 0xFF, ins: 0xB0, p1: 0x00, p2: UInt8(block), le: size)
            let response = try await channel.transmit(command)
            try response.throwIfNotSuccess(for: command)
            guard response.data.count == size else {
                throw ISO15693Error.wrongBlockLength(block: block, length: response.data.count)
            }
            data += byteOrder == .reversedPerBlock ? response.data.reversed() : response.data
        }
        return data
    }

    /// Writes `data` block by block from `first` (single-block writes: many tags disable
    /// multi-block write).
    ///
    /// - Throws: ``ISO15693Error/blockOutOfRange(first:count:)`` when a block would fall outside
    ///   0...255, before anything is written.
    public func writeBlocks(_ first: Int, data: [UInt8], blockSize: Int? = nil) async throws {
        let size = try await resolvedBlockSize(blockSize)
        guard data.count % size == 0 else { throw ISO15693Error.notWholeBlocks(length: data.count, blockSize: size) }
        try Self.checkBlocks(first, count: data.count / size)
        for index in 0..<data.count / size {
            var block = Array(data[index * size..<(index + 1) * size])
            if byteOrder == .reversedPerBlock { block.reverse() }
            let command = try CommandAPDU(cla: 0xFF, ins: 0xD6, p1: 0x00, p2: UInt8(first + index), data: block)
            let response = try await channel.transmit(command)
            if response.statusWord == StatusWord(0x6982) { throw ISO15693Error.blockLocked(first + index) }
            try response.throwIfNotSuccess(for: command)
        }
    }

    /// READ MULTIPLE BLOCKS (0x23) through the transparent exchange, addressed to `uid` when
    /// given (flags 0x22: addressed, high data rate), else non-addressed (0x02).
    public func readMultipleBlocks(_ first: Int, count: Int, blockSize: Int, uid: [UInt8]? = nil) async throws
        -> [UInt8]
    {
        try Self.checkBlocks(first, count: count)
        guard count >= 1 else { throw ISO15693Error.blockOutOfRange(first: first, count: count) }
        try Self.checkBlockSize(blockSize)
        let data = try await transceive(request(command: 0x23, uid: uid, parameters: [UInt8(first), UInt8(count - 1)]))
        guard data.count == count * blockSize else {
            throw ISO15693Error.wrongBlockLength(block: first, length: data.count)
        }
        return byteOrder == .reversedPerBlock
            ? (0..<count).flatMap { data[$0 * blockSize..<($0 + 1) * blockSize].reversed() } : data
    }

    /// WRITE SINGLE BLOCK (0x21) through the transparent exchange, addressed when `uid` is given.
    public func writeBlockDirectly(_ block: Int, data: [UInt8], uid: [UInt8]? = nil) async throws {
        try Self.checkBlocks(block, count: 1)
        let stored = byteOrder == .reversedPerBlock ? Array(data.reversed()) : data
        _ = try await transceive(request(command: 0x21, uid: uid, parameters: [UInt8(block)] + stored))
    }

    /// An ISO 15693-3 request frame: flags, command, the UID LSB first when addressed, parameters.
    private func request(command: UInt8, uid: [UInt8]?, parameters: [UInt8]) -> [UInt8] {
        guard let uid else { return [0x02, command] + parameters }
        return [0x22, command] + uid.reversed() + parameters
    }

    /// LOCK BLOCK (permanent) through the transparent exchange.
    public func lockBlock(_ block: Int) async throws {
        try Self.checkBlocks(block, count: 1)
        _ = try await transceive([0x02, 0x22, UInt8(block)])
    }

    /// Runs `body` inside a PC/SC part 3 transparent session switched to ISO 15693 layer 3:
    /// start the session (`FF C2 00 00 02 81 00`), switch the protocol (`FF C2 00 02 04 8F 02 02
    /// 03`), `body`, end the session (`FF C2 00 00 02 82 00`), the end also when `body` throws.
    ///
    /// Part 3 takes raw requests (``transceive(_:)``, ``systemInformation()``,
    /// ``writeBlockDirectly(_:data:uid:)``…) inside such a session; a reader that follows it to the
    /// letter refuses them outside one. The three commands are those a real ACS ACR1552 took
    /// with an ICODE SLI (NXP community thread 2093136, among CardFlow's card recordings); as
    /// there, the switch goes without Le.
    ///
    /// ```swift
    /// let info = try await tag.withTransparentSession { tag in try await tag.systemInformation() }
    /// ```
    public func withTransparentSession<T>(_ body: (ISO15693Tag) async throws -> T) async throws -> T {
        try await transparentControl(PCSCTransparentExchange.startSession)
        do {
            try await transparentControl(PCSCTransparentExchange.switchProtocol(rf: 0x02, layer: 0x03))
            let result = try await body(self)
            try await transparentControl(PCSCTransparentExchange.endSession)
            return result
        } catch {
            // The body's (or the switch's) error is the one to report; ending the session is
            // still worth a try, its failure (a lifted tag, most likely) adds nothing.
            try? await transparentControl(PCSCTransparentExchange.endSession)
            throw error
        }
    }

    /// A manage-session or switch-protocol command; throws unless the reader's generic error
    /// object says none failed.
    private func transparentControl(_ command: CommandAPDU) async throws {
        let response = try await channel.transmit(command)
        try response.throwIfNotSuccess(for: command)
        try Self.checkGenericError(response.data)
    }

    /// The generic error object every transparent-exchange answer starts with: `C0 03 <index of
    /// the failing object, 0 for none> <SW1 SW2>`.
    private static func checkGenericError(_ reply: [UInt8]) throws(ISO15693Error) {
        guard reply.count >= 5, reply[0] == 0xC0, reply[1] == 0x03 else { throw .malformedExchange(reply) }
        guard reply[2] == 0x00 else { throw .exchangeFailed(sw: UInt16(reply[3]) << 8 | UInt16(reply[4])) }
    }

    /// One raw ISO 15693-3 request in a transparent exchange; returns the response after its
    /// flags byte, or throws the tag's error code.
    ///
    /// - Throws: ``ISO15693Error/requestTooLong(_:)`` for a request over 253 bytes, 246 with
    ///   ``exchangeTimeout`` (it travels in one BER-TLV data object inside a short APDU, after the
    ///   7-byte timer object).
    public func transceive(_ request: [UInt8]) async throws -> [UInt8] {
        let timer = exchangeTimeout.map { PCSCTransparentExchange.timerObject($0) } ?? []
        guard request.count <= 253 - timer.count, let length = UInt8(exactly: request.count) else {
            throw ISO15693Error.requestTooLong(request.count)
        }
        let objects: [UInt8] = timer + [0x95, length] + request
        let command = try CommandAPDU(cla: 0xFF, ins: 0xC2, p1: 0x00, p2: 0x01, data: objects, le: 256)
        let response = try await channel.transmit(command)
        try response.throwIfNotSuccess(for: command)
        let reply = response.data
        // C0 03 <failing object> <SW1 SW2>, then 92/96/97 objects.
        try Self.checkGenericError(reply)
        var offset = 5
        while offset + 1 < reply.count {
            let tag = reply[offset]
            let length = Int(reply[offset + 1])
            guard offset + 2 + length <= reply.count else { throw ISO15693Error.malformedExchange(reply) }
            if tag == 0x97 {
                let frame = Array(reply[offset + 2..<offset + 2 + length])
                guard let flags = frame.first else { throw ISO15693Error.noResponse }
                if flags & 0x01 != 0 { throw ISO15693Error.tagError(code: frame.count > 1 ? frame[1] : 0) }
                return Array(frame.dropFirst())
            }
            offset += 2 + length
        }
        throw ISO15693Error.noResponse
    }

    private func resolvedBlockSize(_ given: Int?) async throws -> Int {
        if let given {
            try Self.checkBlockSize(given)
            return given
        }
        return try await systemInformation().blockSize
    }

    /// Throws unless blocks `first ..< first + count` all have one-byte numbers.
    static func checkBlocks(_ first: Int, count: Int) throws(ISO15693Error) {
        guard addressableBlocks.contains(first), count >= 0, count <= addressableBlocks.upperBound + 1 - first else {
            throw .blockOutOfRange(first: first, count: count)
        }
    }

    /// ISO 15693-3 blocks have 1 to 32 bytes.
    static func checkBlockSize(_ size: Int) throws(ISO15693Error) {
        guard (1...32).contains(size) else { throw .invalidBlockSize(size) }
    }
}

/// GET SYSTEM INFORMATION, decoded (ISO 15693-3 10.3.12).
public struct ISO15693SystemInformation: Sendable, Hashable {
    public var uid: [UInt8]
    public var dsfid: UInt8?
    public var afi: UInt8?
    public var blockCount: Int
    public var blockSize: Int
    public var icReference: UInt8?

    /// Parses the response after the flags byte: info flags, UID (LSB first), then the fields
    /// the info flags announce.
    public init(response: [UInt8]) throws(ISO15693Error) {
        guard response.count >= 9 else { throw .malformedSystemInformation(response) }
        let info = response[0]
        uid = Array(response[1..<9].reversed())
        var offset = 9
        func next() throws(ISO15693Error) -> UInt8 {
            guard offset < response.count else { throw .malformedSystemInformation(response) }
            defer { offset += 1 }
            return response[offset]
        }
        dsfid = info & 0x01 != 0 ? try next() : nil
        afi = info & 0x02 != 0 ? try next() : nil
        guard info & 0x04 != 0 else { throw .noMemorySize }
        blockCount = Int(try next()) + 1
        blockSize = Int(try next() & 0x1F) + 1
        icReference = info & 0x08 != 0 ? try next() : nil
    }
}

/// ISO 15693 failures with what the tag or reader said.
public enum ISO15693Error: Error, Sendable, Hashable, CustomStringConvertible {
    case unexpectedUID([UInt8])
    case wrongBlockLength(block: Int, length: Int)
    case notWholeBlocks(length: Int, blockSize: Int)
    case blockLocked(Int)
    case malformedExchange([UInt8])
    case exchangeFailed(sw: UInt16)
    case noResponse
    case tagError(code: UInt8)
    case malformedSystemInformation([UInt8])
    case noMemorySize
    case differentTag(expected: [UInt8], found: [UInt8])
    case verificationFailed(expected: [UInt8], found: [UInt8])
    /// Blocks `first ..< first + count` are not all in 0...255 (ISO 15693 block numbers are one
    /// byte), or `count` is negative.
    case blockOutOfRange(first: Int, count: Int)
    /// A block size outside 1...32 bytes.
    case invalidBlockSize(Int)
    /// A raw request longer than a transparent exchange carries (253 bytes, 246 with a timer).
    case requestTooLong(Int)

    public var description: String {
        switch self {
        case .unexpectedUID(let bytes): "the reader returned a \(bytes.count)-byte UID; ISO 15693 UIDs have 8"
        case .wrongBlockLength(let block, let length): "block \(block) came back with \(length) bytes"
        case .notWholeBlocks(let length, let size): "\(length) bytes are not whole \(size)-byte blocks"
        case .blockLocked(let block): "block \(block) is locked"
        case .malformedExchange: "the reader's transparent-exchange answer is malformed"
        case .exchangeFailed(let sw): "the transparent exchange failed with \(String(sw, radix: 16, uppercase: true))"
        case .noResponse: "the tag did not answer"
        case .tagError(let code):
            "the tag answered error 0x\(String(code, radix: 16, uppercase: true))" + Self.meaning(code)
        case .malformedSystemInformation: "GET SYSTEM INFORMATION answer is malformed"
        case .noMemorySize: "the tag does not report its memory size"
        case .blockOutOfRange(let first, let count):
            count < 0
                ? "a block count of \(count) is negative"
                : "\(count) blocks from block \(first) are outside the block numbers ISO 15693 can address (0...255)"
        case .invalidBlockSize(let size): "a block size of \(size) bytes is outside 1...32"
        case .requestTooLong(let count):
            "a \(count)-byte request does not fit a transparent exchange (253 bytes at most, 246 with a timer)"
        case .verificationFailed(let expected, let found):
            "read-back differs from what was written (\(expected.count) bytes written, \(zip(expected, found).filter { $0 != $1 }.count) differ)"
        case .differentTag(let expected, let found):
            "another tag (\(found.map { String($0, radix: 16) }.joined())) is on the reader, not \(expected.map { String($0, radix: 16) }.joined())"
        }
    }

    private static func meaning(_ code: UInt8) -> String {
        switch code {
        case 0x01: " (command not supported)"
        case 0x02: " (command not recognised)"
        case 0x10: " (block not available)"
        case 0x11: " (block already locked)"
        case 0x12: " (block locked, cannot be changed)"
        case 0x13: " (programming failed)"
        case 0x14: " (lock failed)"
        default: ""
        }
    }
}
