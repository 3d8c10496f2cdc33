import ArgumentParser
import CCID
import CardFlow
import CardDaemon
import Foundation

/// `cardctl list`: the readers the selector names, their capabilities and card.
struct ListCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "list", abstract: "List readers, their capabilities and the card on them.")

    @OptionGroup var global: GlobalOptions

    struct Listing: Encodable {
        let name: String
        let vendorID: String
        let productID: String
        let exchangeLevel: String
        let maxMessageLength: Int
        let slots: Int
        let protocols: [String]
        let cardPresent: Bool
        let atr: String?
    }

    func run() async throws {
        if let socket = global.socket {
            // cardd's readers, as its jobs name them.
            let readers = try await DaemonConnection.request(socket: socket, ["op": "readers"])
            if global.json { Output.standardOutput(DaemonConnection.pretty(readers)); return }
            guard case .array(let list) = readers else { return }
            if list.isEmpty { Output.standardOutput("cardd has no readers") }
            for reader in list {
                Output.standardOutput("\(reader["id"]?.stringValue ?? "?"): \(reader["name"]?.stringValue ?? "?") "
                                      + "[\(reader["vendorID"]?.stringValue ?? "?"):\(reader["productID"]?.stringValue ?? "?")] "
                                      + (reader["exchangeLevel"]?.stringValue ?? ""))
            }
            return
        }
        let logger = CommandLogging.logger(trace: global.trace)
        let connection = try await ReaderConnection.open(global, logger: logger)
        var listings: [Listing] = []
        for reader in connection.readers {
            let descriptor = reader.info.descriptor
            var atr: String?
            let state = try await reader.driver.slotStatus()
            if state.icc != .absent {
                // The ATR is only known once the card is powered; power it off again afterwards.
                do {
                    atr = try await reader.driver.powerOn().hexString
                    try await reader.driver.powerOff()
                } catch CCIDDriverError.noCard {
                    atr = nil
                }
            }
            listings.append(Listing(
                name: reader.info.name, vendorID: hex4(reader.info.vendorID), productID: hex4(reader.info.productID),
                exchangeLevel: descriptor.exchangeLevel.rawValue, maxMessageLength: Int(descriptor.maxMessageLength),
                slots: descriptor.slotCount, protocols: descriptor.protocols.names,
                cardPresent: state.icc != .absent, atr: atr))
        }
        try await connection.close()
        if global.json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            print(String(decoding: try encoder.encode(listings), as: UTF8.self))
        } else {
            for listing in listings {
                print("\(listing.name) [\(listing.vendorID):\(listing.productID)] \(listing.exchangeLevel), "
                      + "\(listing.maxMessageLength)-byte messages, \(listing.slots) slot(s), \(listing.protocols.joined(separator: "/"))")
                print(listing.cardPresent ? "  card present, ATR \(listing.atr ?? "unknown")" : "  no card")
            }
        }
    }
}

func hex4(_ value: UInt16) -> String {
    let text = String(value, radix: 16, uppercase: true)
    return String(repeating: "0", count: max(0, 4 - text.count)) + text
}
