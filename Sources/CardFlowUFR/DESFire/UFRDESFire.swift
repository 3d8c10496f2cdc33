import CardFlow
import Logging

/// MIFARE DESFire operations the uFR reader runs itself: it selects the application,
/// authenticates and applies secure messaging, with a key from one of its 16 key slots (the
/// "reader key" mode of Digital Logic's DESFire app: the key never crosses the link) or with a
/// key sent in the frame. These are the uFR COM protocol's DESFire commands (ufr.md §4); every
/// call is one whole transaction on the card, and none needs an ISO 14443-4 session.
///
/// Where the documents give no command (file settings, the card's version), use CardFlow's own
/// DESFire client over APDUs (`DESFireClient` on a ``/CardFlow/CardSession`` of the same
/// reader), which also works with provided keys through any uFR link.
///
/// ```swift
/// let desfire = UFRDESFire(device: device)
/// try await desfire.writeReaderKey(slot: 3, key: aesKey)
/// let inReader = try UFRDESFireKey.readerSlot(3)
/// try await desfire.changePICCMasterKey(
///     from: .provided(type: .des, [UInt8](repeating: 0, count: 8)), to: inReader)
/// try await desfire.createApplication(0xF0_0001, settings: 0x0F, keyCount: 2, piccKey: inReader)
/// try await desfire.write(Array("hello".utf8), application: 0xF0_0001, file: 1, key: inReader)
/// ```
public struct UFRDESFire: Sendable {
    /// The protocol connection to the reader.
    public let connection: UFRConnection
    /// The wait for one command's answer (the card's time included).
    public var timeout: Duration

    /// - Parameters:
    ///   - connection: the protocol connection to the reader.
    ///   - timeout: the wait for one command's answer (default 5 s: a format or a long
    ///     enciphered write takes the card a while).
    public init(connection: UFRConnection, timeout: Duration = .seconds(5)) {
        self.connection = connection
        self.timeout = timeout
    }

    /// The DESFire commands of the reader `device` drives (its ``UFRReaderDevice/connection``).
    public init(device: UFRReaderDevice, timeout: Duration = .seconds(5)) {
        self.init(connection: device.connection, timeout: timeout)
    }

    /// The card's free memory in bytes (no authentication).
    public func freeMemory() async throws -> UInt32 {
        let reply = try await run(try .desfireFreeMemory())
        guard reply.data.count >= 4 else {
            throw UFRDESFireError.malformedReply(.desfireFreeMemory, "\(reply.data.count) bytes of free memory")
        }
        return reply.data.prefix(4).enumerated().reduce(0) { $0 | UInt32($1.element) << (8 * $1.offset) }
    }

    /// Deletes every application (authenticates with the PICC master key).
    public func format(piccKey: UFRDESFireKey) async throws {
        _ = try await run(try .desfireFormat(piccKey: piccKey))
    }

    /// Changes the PICC master key (key 0 of application 000000) from `current` to `new`, its
    /// type included: DES → AES with a DES `current` and an AES `new` (a frame the documents do
    /// not give; see ``UFRCommand/desfireChangeKey(application:authenticationKey:authenticationKeyNumber:newKey:keyNumber:oldKey:)``).
    public func changePICCMasterKey(from current: UFRDESFireKey, to new: UFRDESFireKey) async throws {
        try await changeKey(
            application: 0, keyNumber: 0, to: new, authenticatingWith: current, authenticationKeyNumber: 0, oldKey: nil)
    }

    /// Creates an application.
    ///
    /// - Parameters:
    ///   - application: the application ID, 0x000001–0xFFFFFF.
    ///   - settings: the key settings byte.
    ///   - keyCount: how many keys, 1–14.
    ///   - keyType: the keys' type.
    ///   - piccKey: the PICC master key to authenticate with, nil when the card lets anyone create.
    public func createApplication(
        _ application: UInt32, settings: UInt8, keyCount: Int, keyType: UFRDESFireKeyType = .aes,
        piccKey: UFRDESFireKey?
    ) async throws {
        _ = try await run(
            try .desfireCreateApplication(
                application, settings: settings, keyCount: keyCount, keyType: keyType, piccKey: piccKey))
    }

    /// Creates a standard data file.
    ///
    /// - Parameters:
    ///   - file: the file number, 0–31.
    ///   - application: the application.
    ///   - size: its size in bytes.
    ///   - accessRights: read << 12 | write << 8 | read&write << 4 | change (0xE free, 0xF never).
    ///   - communication: plain, MACed or enciphered.
    ///   - applicationKey: the application master key to authenticate with, nil for none.
    public func createStandardFile(
        _ file: UInt8, application: UInt32, size: UInt32, accessRights: UInt16,
        communication: UFRDESFireCommunication, applicationKey: UFRDESFireKey?
    ) async throws {
        _ = try await run(
            try .desfireCreateStandardFile(
                application: application, file: file, size: size, accessRights: accessRights,
                communication: communication, applicationKey: applicationKey))
    }

    /// Reads `length` bytes of a standard data file from `offset`.
    ///
    /// - Parameters:
    ///   - application: the application.
    ///   - file: the file number, 0–31.
    ///   - offset: the first byte.
    ///   - length: how many bytes, 1–65,535 (the data come streamed before the reply).
    ///   - communication: the file's communication settings.
    ///   - key: the key to authenticate with, nil for a file free to read.
    ///   - keyNumber: the application key number `key` is.
    public func read(
        application: UInt32, file: UInt8, offset: Int = 0, length: Int,
        communication: UFRDESFireCommunication = .plain, key: UFRDESFireKey?, keyNumber: UInt8 = 0
    ) async throws -> [UInt8] {
        guard let offset16 = UInt16(exactly: offset), let length16 = UInt16(exactly: length), length > 0 else {
            throw UFRDESFireError.invalidArgument("offset and length are 16-bit, length at least 1")
        }
        let command = try UFRCommand.desfireRead(
            application: application, key: key, keyNumber: keyNumber, file: file, offset: offset16, length: length16,
            communication: communication)
        let (reply, data) = try await connection.executeCollectingStreamedData(command, timeout: timeout)
        _ = try UFRDESFireReply(reply, to: command.code)
        guard data.count == length else {
            throw UFRDESFireError.malformedReply(command.code, "\(data.count) bytes streamed for \(length) asked")
        }
        return data
    }

    /// Writes `data` into a standard data file at `offset`, in commands of at most
    /// ``UFRCommand/maximumDESFireWritePart`` bytes (each one authenticated transaction, so a
    /// failure part-way leaves the parts before it written).
    public func write(
        _ data: [UInt8], application: UInt32, file: UInt8, offset: Int = 0,
        communication: UFRDESFireCommunication = .plain, key: UFRDESFireKey?, keyNumber: UInt8 = 0
    ) async throws {
        guard !data.isEmpty, offset >= 0, offset + data.count <= Int(UInt16.max) + 1 else {
            throw UFRDESFireError.invalidArgument("a write ends within 65,536 bytes and is not empty")
        }
        var start = 0
        while start < data.count {
            let part = Array(data[start..<min(start + UFRCommand.maximumDESFireWritePart, data.count)])
            guard let partOffset = UInt16(exactly: offset + start) else {
                throw UFRDESFireError.invalidArgument("offset \(offset + start) is not 16-bit")
            }
            _ = try await run(
                try .desfireWrite(
                    part, application: application, key: key, keyNumber: keyNumber, file: file, offset: partOffset,
                    communication: communication))
            start += part.count
        }
    }

    /// Changes key `keyNumber` of `application` to `new`, authenticating with key
    /// `authenticationKeyNumber` (`key`).
    ///
    /// - Parameters:
    ///   - application: the application (000000 for the PICC master key).
    ///   - keyNumber: the key changed.
    ///   - new: its new value.
    ///   - key: the key to authenticate with.
    ///   - authenticationKeyNumber: the key number `key` is.
    ///   - oldKey: the changed key's current value, needed when it is not the one authenticated
    ///     with.
    public func changeKey(
        application: UInt32, keyNumber: UInt8, to new: UFRDESFireKey, authenticatingWith key: UFRDESFireKey,
        authenticationKeyNumber: UInt8 = 0, oldKey: UFRDESFireKey? = nil
    ) async throws {
        _ = try await run(
            try .desfireChangeKey(
                application: application, authenticationKey: key, authenticationKeyNumber: authenticationKeyNumber,
                newKey: new, keyNumber: keyNumber, oldKey: oldKey))
    }

    /// Stores an AES key in reader key slot `slot` (0–15). The reader never gives it back.
    ///
    /// - Throws: ``UFRDESFireError/readerKeyRefused(_:)`` (keys locked 0x76, …),
    ///   ``UFRDESFireError/invalidArgument(_:)``, or a link ``UFRError``.
    public func writeReaderKey(slot: Int, key: [UInt8]) async throws {
        let command = try UFRCommand.desfireWriteReaderKey(slot: slot, key: key)
        let reply = try await connection.execute(command, timeout: timeout)
        if let status = reply.status { throw UFRDESFireError.readerKeyRefused(status) }
        guard reply.extensionData.count == 2 else {
            throw UFRDESFireError.malformedReply(
                command.code, "\(reply.extensionData.count) EXT bytes, not 00 and the error code")
        }
        let status = UFRStatus(rawValue: reply.extensionData[1])
        guard status.rawValue == 0 else { throw UFRDESFireError.readerKeyRefused(status) }
    }

    private func run(_ command: UFRCommand) async throws -> UFRDESFireReply {
        try UFRDESFireReply(try await connection.execute(command, timeout: timeout), to: command.code)
    }
}
