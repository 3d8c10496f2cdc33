import CardFlow

/// NDEF on an NFC Forum Type 4 Tag (T4T 2.0): the NDEF Tag Application, its capability
/// container and its NDEF file, read and written through any ``CardChannel`` (a
/// ``CardSession`` usually).
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

    public let channel: any CardChannel

    public init(channel: any CardChannel) {
        self.channel = channel
    }

    /// Selects the NDEF Tag Application and reads the capability container.
    public func capabilityContainer() async throws -> Type4CapabilityContainer {
        try await check(CommandAPDU(cla: 0x00, ins: 0xA4, p1: 0x04, p2: 0x00, data: Self.applicationID, le: 256),
                        else: .notAnNDEFTag)
        try await select(file: Self.capabilityContainerFile)
        let header = try await read(offset: 0, count: 2)
        let length = Int(header[0]) << 8 | Int(header[1])
        guard (15...0xFFFE).contains(length) else {
            throw NDEFTagError.malformedCapabilityContainer("CCLEN is \(length), at least 15 expected")
        }
        // Read no more than the minimal MLe every T4T tag supports until MLe is known.
        var bytes = header
        while bytes.count < 15 {
            bytes += try await read(offset: bytes.count, count: min(15 - bytes.count, 0x0F))
        }
        return try Type4CapabilityContainer(bytes: bytes)
    }

    /// The NDEF message bytes stored on the tag (empty when NLEN is 0).
    public func readMessageBytes() async throws -> [UInt8] {
        let container = try await capabilityContainer()
        try await select(file: container.ndefFileID)
        let nlenBytes = try await read(offset: 0, count: 2)
        let length = Int(nlenBytes[0]) << 8 | Int(nlenBytes[1])
        guard length <= container.maximumNDEFFileSize - 2 else {
            throw NDEFTagError.malformedNDEFFile("NLEN \(length) exceeds the file size \(container.maximumNDEFFileSize)")
        }
        var message: [UInt8] = []
        message.reserveCapacity(length)
        while message.count < length {
            let chunk = min(container.maximumReadLength, length - message.count)
            let part = try await read(offset: 2 + message.count, count: chunk)
            guard !part.isEmpty else { throw NDEFTagError.malformedNDEFFile("the tag returned no data at offset \(2 + message.count)") }
            message += part
        }
        return message
    }

    /// Replaces the NDEF message (NLEN 0, data, then NLEN).
    public func writeMessageBytes(_ message: [UInt8]) async throws {
        let container = try await capabilityContainer()
        guard container.isWritable else { throw NDEFTagError.readOnly }
        guard message.count <= container.maximumNDEFFileSize - 2 else {
            throw NDEFTagError.messageTooLarge(size: message.count, capacity: container.maximumNDEFFileSize - 2)
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
        let command = try CommandAPDU(cla: 0x00, ins: 0xB0, p1: UInt8(offset >> 8), p2: UInt8(offset & 0xFF), le: count)
        let response = try await channel.send(command)
        // 62 82: end of file reached before Le bytes; the data read is still valid.
        guard response.statusWord.isSuccess || response.statusWord == StatusWord(0x6282) else {
            throw CardStatusError(statusWord: response.statusWord, command: command)
        }
        return response.data
    }

    private func update(offset: Int, data: [UInt8]) async throws {
        let command = try CommandAPDU(cla: 0x00, ins: 0xD6, p1: UInt8(offset >> 8), p2: UInt8(offset & 0xFF), data: data)
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
