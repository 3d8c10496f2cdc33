import CardFlow
import CardFlowDESFire
import Foundation

/// The service lost the card: the client said `cardLost` instead of answering.
struct RemoteCardLost: Error {}
/// The client answered something the service did not expect.
struct RemoteProtocolError: Error, CustomStringConvertible {
    let description: String
}

/// A card channel on the service side: `transmit` sends the APDU to the relay client and awaits
/// the card's answer, so the real DESFire client runs remotely.
actor RemoteChannel: CardChannel {
    let connection: ServiceConnection
    private var nextID: Int
    private(set) var lost = false

    init(connection: ServiceConnection, firstID: Int = 1) {
        self.connection = connection
        self.nextID = firstID
    }

    func transmit(_ command: CommandAPDU) async throws -> ResponseAPDU {
        guard !lost else { throw RemoteCardLost() }
        let id = nextID
        nextID += 1
        try await connection.send(json: ["v": 1, "type": "apdu", "id": id, "apdu": command.encoded().hexString])
        let message = try await connection.next()
        switch message.type {
        case "response":
            guard message.id == id, let hex = message.response else {
                throw RemoteProtocolError(description: "response \(String(describing: message.id)) to APDU \(id)")
            }
            return try ResponseAPDU(hex: hex)
        case "cardLost":
            lost = true
            throw RemoteCardLost()
        default:
            throw RemoteProtocolError(description: "unexpected \(message.type)")
        }
    }

    /// Waits for the client's `cardReset` after a loss.
    func awaitReset() async throws {
        while true {
            let message = try await connection.next()
            if message.type == "cardReset" { break }
            guard message.type == "cardLost" else {
                throw RemoteProtocolError(description: "expected cardReset, got \(message.type)")
            }
        }
        lost = false
    }
}

/// The multi-APDU protocol the test service runs: a DESFire provisioning computed on the
/// service side (authenticate → application → AES key auth → file → write → read back),
/// idempotent so that it is simply redone after a card reset.
enum DESFireRelayService {
    static let application = try! DESFireApplicationID(hex: "C0FFEE")
    static let payload = Array("relayed through the service".utf8)
    static let appKey = try! DESFireKey(type: .aes, bytes: [UInt8](repeating: 0, count: 16))
    /// The PICC DF name the gate selects on the simulated DESFire card.
    static let piccAID: [UInt8] = [0xD2, 0x76, 0x00, 0x00, 0x85, 0x01, 0x00]

    static func behaviour(maxAttempts: Int = 4) -> @Sendable (ServiceConnection) async throws -> Void {
        { connection in
            let hello = try await connection.next()
            guard hello.type == "hello" else {
                throw RemoteProtocolError(description: "expected hello, got \(hello.type)")
            }
            let channel = RemoteChannel(connection: connection)
            var attempt = 0
            while true {
                attempt += 1
                do {
                    try await provision(over: channel, connection: connection)
                    try await connection.send(json: ["v": 1, "type": "done", "message": "provisioned"])
                    return
                } catch {
                    // After a loss the card was power-cycled: start over once it is back.
                    guard await channel.lost, attempt < maxAttempts else {
                        try? await connection.send(json: ["v": 1, "type": "failed", "reason": "\(error)"])
                        return
                    }
                    try await channel.awaitReset()
                }
            }
        }
    }

    static func provision(over channel: RemoteChannel, connection: ServiceConnection) async throws {
        let client = DESFireClient(channel: channel)
        try await client.selectApplication(.picc)
        try await client.authenticate(keyNumber: 0, key: .defaultDES)
        try await connection.send(json: ["v": 1, "type": "progress", "fraction": 0.25])
        if try await !client.getApplicationIDs().contains(application) {
            try await client.createApplication(application, keyCount: 1, keyType: .aes)
        }
        try await client.selectApplication(application)
        try await client.authenticate(keyNumber: 0, key: appKey)
        try await connection.send(json: ["v": 1, "type": "progress", "fraction": 0.5])
        if try await !client.getFileIDs().contains(1) {
            try await client.createDataFile(
                file: 1, size: 32, commMode: .enciphered,
                accessRights: DESFireAccessRights(read: 0, write: 0, readWrite: 0, change: 0))
        }
        try await client.writeData(file: 1, data: payload, commMode: .enciphered)
        try await connection.send(json: ["v": 1, "type": "progress", "fraction": 0.75])
        let back = try await client.readData(file: 1, length: payload.count, commMode: .enciphered)
        guard back == payload else { throw RemoteProtocolError(description: "read back \(back.hexString)") }
        try await connection.send(json: ["v": 1, "type": "progress", "fraction": 1.0])
    }

    /// Reads the provisioned file directly on the reader (not through the relay).
    static func readBack(on reader: Reader) async throws -> [UInt8]? {
        try await reader.withSession { session in
            let client = DESFireClient(channel: session)
            try await client.selectApplication(.picc)
            guard try await client.getApplicationIDs().contains(application) else { return nil }
            try await client.selectApplication(application)
            try await client.authenticate(keyNumber: 0, key: appKey)
            return try await client.readData(file: 1, length: payload.count, commMode: .enciphered)
        }
    }
}
