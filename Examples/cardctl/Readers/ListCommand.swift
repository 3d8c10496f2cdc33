import ArgumentParser
import CardFlow
import CardFlowCCID
import CardFlowCCIDProtocol
import CardFlowDaemonControl
import CardFlowUFR
import Foundation

/// `cardctl list`: the readers the selector names, their capabilities and card.
struct ListCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list", abstract: "List readers, their capabilities and the card on them.")

    @OptionGroup(title: "Global Options") var global: GlobalOptions

    @Flag(
        name: .customLong("discover-ufr"),
        help:
            "Search the local network for uFR Nano Online readers (UDP port 8880) and print their ufr: selectors, instead of listing the selected readers."
    )
    var discoverUFR = false

    @Option(
        name: .customLong("discovery-address"),
        help:
            "With --discover-ufr: where the probe goes (a broadcast address such as 192.168.1.255, or one reader's address)."
    )
    var discoveryAddress = "255.255.255.255"

    @Option(name: .customLong("discovery-port"), help: "With --discover-ufr: the readers' discovery port.")
    var discoveryPort = UFRDiscovery.port

    @Option(name: .customLong("discovery-time"), help: "With --discover-ufr: seconds to collect answers (0.05 to 60).")
    var discoveryTime = 1.0

    func validate() throws {
        guard (1...65_535).contains(discoveryPort) else { throw ValidationError("--discovery-port must be 1 to 65535") }
        guard (0.05...60).contains(discoveryTime) else {
            throw ValidationError("--discovery-time must be 0.05 to 60 seconds")
        }
        guard !discoveryAddress.isEmpty else { throw ValidationError("--discovery-address must not be empty") }
    }

    /// One reader. The CCID fields (exchange level, message length, slots) are there for CCID
    /// readers (usb, sim) only.
    struct Listing: Encodable {
        let id: String
        let name: String
        let backend: String
        let vendorID: String?
        let productID: String?
        let exchangeLevel: String?
        let maxMessageLength: Int?
        let slots: Int?
        let protocols: [String]
        let cardPresent: Bool
        let atr: String?
    }

    func run() async throws {
        if discoverUFR {
            try await UFRDiscoveryListing.run(
                address: discoveryAddress, port: discoveryPort, seconds: discoveryTime, json: global.json,
                logger: CommandLogging.logger(trace: global.trace))
            return
        }
        if let socket = global.socket {
            // cardd's readers, as its jobs name them.
            let readers = try await DaemonConnection.request(socket: socket, ["op": "readers"])
            if global.json { Output.standardOutput(DaemonConnection.pretty(readers)); return }
            guard case .array(let list) = readers else { return }
            if list.isEmpty { Output.standardOutput("cardd has no readers") }
            for reader in list {
                Output.standardOutput(
                    "\(reader["id"]?.stringValue ?? "?"): \(reader["name"]?.stringValue ?? "?") "
                        + "[\(reader["vendorID"]?.stringValue ?? "?"):\(reader["productID"]?.stringValue ?? "?")] "
                        + (reader["exchangeLevel"]?.stringValue ?? ""))
            }
            return
        }
        let logger = CommandLogging.logger(trace: global.trace)
        let connection = try await ReaderConnection.open(global, logger: logger)
        if connection.readers.isEmpty, connection.choice.source == .builtInDefault {
            // Nothing was chosen and no USB reader is there: say how to choose, not "no readers".
            try await connection.close()
            throw connection.noReaderError
        }
        let listings: [Listing]
        do {
            listings = try await Self.listings(of: connection.readers)
        } catch {
            // PC/SC presence watches must end before the process exits, whatever failed.
            try? await connection.close()
            throw error
        }
        try await connection.close()
        if global.json {
            try Output.sortedJSON(listings, escapingSlashes: true)
        } else {
            for listing in listings {
                var facts = [listing.backend]
                if let exchangeLevel = listing.exchangeLevel { facts.append(exchangeLevel) }
                if let maxMessageLength = listing.maxMessageLength { facts.append("\(maxMessageLength)-byte messages") }
                if let slots = listing.slots { facts.append("\(slots) slot(s)") }
                if !listing.protocols.isEmpty { facts.append(listing.protocols.joined(separator: "/")) }
                let usb = listing.vendorID.map { " [\($0):\(listing.productID ?? "?")]" } ?? ""
                print("\(listing.name)\(usb) \(facts.joined(separator: ", "))")
                print(listing.cardPresent ? "  card present, ATR \(listing.atr ?? "unknown")" : "  no card")
            }
        }
    }

    /// Each reader's facts, and its card's ATR when one is there.
    private static func listings(of readers: [Reader]) async throws -> [Listing] {
        var listings: [Listing] = []
        for reader in readers {
            let info = reader.info
            let descriptor = reader.ccid?.driver.descriptor
            var atr: String?
            let presence = try await reader.driver.presence()
            if presence == .present {
                // The ATR is only known once the card is powered; power it off again afterwards.
                do {
                    atr = try await reader.driver.powerOn(protocol: nil).hexString
                    try await reader.driver.powerOff()
                } catch let error where error.cardLoss == .noCard {
                    atr = nil
                }
            }
            listings.append(
                Listing(
                    id: info.id, name: info.name, backend: info.backend,
                    vendorID: info.vendorID.map(hex4), productID: info.productID.map(hex4),
                    exchangeLevel: descriptor?.exchangeLevel.rawValue,
                    maxMessageLength: descriptor.map { Int($0.maxMessageLength) },
                    slots: descriptor?.slotCount,
                    protocols: info.capabilities.protocols.sorted { $0.rawValue < $1.rawValue }.map(\.description),
                    cardPresent: presence == .present, atr: atr))
        }
        return listings
    }
}

func hex4(_ value: UInt16) -> String {
    let text = String(value, radix: 16, uppercase: true)
    return String(repeating: "0", count: max(0, 4 - text.count)) + text
}
