import CardFlowUFR
import Logging

/// `cardctl list --discover-ufr`: the uFR Nano Online readers that answer a discovery probe on
/// the local network, each with the `ufr:` selectors that open it.
struct UFRDiscoveryListing: Encodable {
    struct Port: Encodable {
        let uart: Int
        let port: Int
        let transport: String
        let baudRate: Int
        let selector: String
    }

    struct Reader: Encodable {
        let host: String
        let serial: String?
        let source: String
        let ports: [Port]
    }

    struct Rejected: Encodable {
        let source: String
        let error: String
    }

    let readers: [Reader]
    let rejected: [Rejected]

    /// Searches and prints what answered (JSON with `json`).
    static func run(
        address: String, port: Int, seconds: Double, json: Bool, logger: Logger
    ) async throws {
        let result = try await UFRDiscovery.discover(
            address: address, port: port, window: .milliseconds(Int64(seconds * 1_000)), logger: logger)
        let listing = UFRDiscoveryListing(
            readers: result.readers.map { found in
                Reader(
                    host: found.answer.host, serial: found.answer.serial, source: found.source,
                    ports: found.answer.ports.map {
                        Port(
                            uart: $0.uart, port: $0.port, transport: $0.transport.rawValue, baudRate: $0.baudRate,
                            selector: "ufr:\($0.endpoint(host: found.answer.host))")
                    })
            },
            rejected: result.rejected.map { Rejected(source: $0.source, error: $0.error.description) })
        if json {
            try Output.sortedJSON(listing, escapingSlashes: true)
            return
        }
        if listing.readers.isEmpty {
            Output.standardOutput("no uFR Nano Online answered on udp:\(address):\(port) within \(seconds) s")
        }
        for reader in listing.readers {
            let from = reader.source == reader.host ? "" : " (answered from \(reader.source))"
            Output.standardOutput("uFR Nano Online \(reader.host)\(reader.serial.map { " \($0)" } ?? "")\(from)")
            for port in reader.ports {
                Output.standardOutput("  \(port.selector)  UART\(port.uart), \(port.baudRate) bps")
            }
        }
        for rejected in listing.rejected {
            Output.standardError("cardctl: ignored a datagram from \(rejected.source): \(rejected.error)")
        }
    }
}
