import CardFlow

/// NDEF on an NFC Forum Type 4 Tag (T4T 2.0): the NDEF Tag Application, its capability
/// container and its NDEF file, read and written through any ``/CardFlow/CardChannel`` (a
/// ``/CardFlow/CardSession`` usually).
///
/// ```swift
/// let message = try await reader.withSession { session in
///     try await Type4Tag(channel: session).readMessageBytes()
/// }
/// ```
///
/// Writing follows the specification's safe order: NLEN is set to 0 first, the message is
/// written, and NLEN is set last, so a tag lifted mid-write holds an empty message, never a
/// partial one that reads as valid.
public struct Type4Tag: Sendable {
    public static let applicationID: [UInt8] = [0xD2, 0x76, 0x00, 0x00, 0x85, 0x01, 0x01]
    public static let capabilityContainerFile: [UInt8] = [0xE1, 0x03]

    /// READ/UPDATE BINARY with an offset in P1-P2 reach offsets up to 0x7FFF (bit 8 of P1 set
    /// means a short file identifier instead), so only this much of an NDEF file can be used.
    public static let maxAddressableFileSize = 0x8000

    public let channel: any CardChannel

    public init(channel: any CardChannel) {
        self.channel = channel
    }

    /// Selects the NDEF Tag Application and reads the capability container.
    public func capabilityContainer() async throws -> Type4CapabilityContainer {
        try await check(
            CommandAPDU(cla: 0x00, ins: 0xA4, p1: 0x04, p2: 0x00, data: Self.applicationID, le: 256),
            else: .notAnNDEFTag)
        try await select(file: Self.capabilityContainerFile)
        let header = try await read(offset: 0, count: 2)
        guard header.count >= 2 else {
            throw NDEFTagError.malformedCapabilityContainer(
                "READ BINARY of CCLEN returned \(header.count) bytes, 2 expected")
        }
        let length = Int(header[0]) << 8 | Int(header[1])
        guard (15...0xFFFE).contains(length) else {
            throw NDEFTagError.malformedCapabilityContainer("CCLEN is \(length), at least 15 expected")
        }
        // Read no more than the minimal MLe every T4T tag supports until MLe is known. Every
        // round must bring data: a tag answering 9000 without any would otherwise be asked forever.
        var bytes = Array(header.prefix(2))
        while bytes.count < 15 {
            let part = try await read(offset: bytes.count, count: min(15 - bytes.count, 0x0F))
            guard !part.isEmpty else {
                throw NDEFTagError.malformedCapabilityContainer("the tag returned no data at offset \(bytes.count)")
            }
            bytes += part.prefix(15 - bytes.count)
        }
        return try Type4CapabilityContainer(bytes: bytes)
    }

    /// The NDEF message bytes stored on the tag (empty when NLEN is 0).
    public func readMessageBytes() async throws -> [UInt8] {
        let container = try await capabilityContainer()
        try await select(file: container.ndefFileID)
        let nlenBytes = try await read(offset: 0, count: 2)
        guard nlenBytes.count >= 2 else {
            throw NDEFTagError.malformedNDEFFile("READ BINARY of NLEN returned \(nlenBytes.count) bytes, 2 expected")
        }
        let length = Int(nlenBytes[0]) << 8 | Int(nlenBytes[1])
        guard length <= min(container.maximumNDEFFileSize, Self.maxAddressableFileSize) - 2 else {
            throw NDEFTagError.malformedNDEFFile(
                "NLEN \(length) exceeds the file size \(container.maximumNDEFFileSize)")
        }
        var message: [UInt8] = []
        message.reserveCapacity(length)
        while message.count < length {
            let chunk = min(container.maximumReadLength, length - message.count)
            let part = try await read(offset: 2 + message.count, count: chunk)
            guard !part.isEmpty else {
                throw NDEFTagError.malformedNDEFFile("the tag returned no data at offset \(2 + message.count)")
            }
            guard part.count <= chunk else {
                throw NDEFTagError.malformedNDEFFile(
                    "the tag returned \(part.count) bytes at offset \(2 + message.count), \(chunk) asked for")
            }
            message += part
        }
        return message
    }

    /// Replaces the NDEF message (NLEN 0, data, then NLEN).
    public func writeMessageBytes(_ message: [UInt8]) async throws {
        let container = try await capabilityContainer()
        guard container.isWritable else { throw NDEFTagError.readOnly }
        let capacity = min(container.maximumNDEFFileSize, Self.maxAddressableFileSize) - 2
        guard message.count <= capacity else {
            throw NDEFTagError.messageTooLarge(size: message.count, capacity: capacity)
        }
        try await select(file: container.ndefFileID)
        try await update(offset: 0, data: [0x00, 0x00])
        var written = 0
        while written < message.count {
            let chunk = min(container.maximumWriteLength, message.count - written)
            try await update(offset: 2 + written, data: Array(message[written..<written + chunk]))
            written += chunk
        }
        try await update(offset: 0, data: [UInt8(message.count >> 8), UInt8(message.count & 0xFF)])
    }

    // MARK: - APDUs

    private func select(file: [UInt8]) async throws {
        try await check(CommandAPDU(cla: 0x00, ins: 0xA4, p1: 0x00, p2: 0x0C, data: file), else: .fileNotFound(file))
    }

    private func read(offset: Int, count: Int) async throws -> [UInt8] {
        guard (0..<Self.maxAddressableFileSize).contains(offset) else {
            throw NDEFTagError.malformedNDEFFile("offset \(offset) is beyond what READ BINARY can address")
        }
        let command = try CommandAPDU(cla: 0x00, ins: 0xB0, p1: UInt8(offset >> 8), p2: UInt8(offset & 0xFF), le: count)
        let response = try await channel.send(command)
        // 62 82: end of file reached before Le bytes; the data read is still valid.
        guard response.statusWord.isSuccess || response.statusWord == StatusWord(0x6282) else {
            throw CardStatusError(statusWord: response.statusWord, command: command)
        }
        return response.data
    }

    private func update(offset: Int, data: [UInt8]) async throws {
        guard (0..<Self.maxAddressableFileSize).contains(offset) else {
            throw NDEFTagError.malformedNDEFFile("offset \(offset) is beyond what UPDATE BINARY can address")
        }
        let command = try CommandAPDU(
            cla: 0x00, ins: 0xD6, p1: UInt8(offset >> 8), p2: UInt8(offset & 0xFF), data: data)
        let response = try await channel.send(command)
        if response.statusWord == StatusWord(0x6982) { throw NDEFTagError.readOnly }
        try response.throwIfNotSuccess(for: command)
    }

    private func check(_ command: CommandAPDU, else error: NDEFTagError) async throws {
        let response = try await channel.send(command)
        guard response.statusWord.isSuccess else {
            if response.statusWord == StatusWord(0x6A82) { throw error }
            throw CardStatusError(statusWord: response.statusWord, command: command)
        }
    }
}
