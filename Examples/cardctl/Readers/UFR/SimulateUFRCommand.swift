import ArgumentParser
import CardFlowSimulator
import CardFlowSimulatorUFR
import CardFlowSimulatorUSB
import Foundation

/// `cardctl simulate-ufr`: a simulated uFR Nano Online on the loopback interface (its TCP and
/// UDP ports and its discovery port), holding a simulated card, until stopped or for the run of
/// COMMAND. For trying the `ufr:` backend, `list --discover-ufr` and scripts without a reader.
/// With `--usb`, a simulated USB uFR Nano instead: an emulated FTDI chip on umockdev's USB bus
/// for the run of COMMAND (as `cardctl simulate` does for CCID readers).
struct SimulateUFRCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "simulate-ufr",
        abstract: "Serve a simulated uFR Nano Online on 127.0.0.1 (TCP, UDP and discovery ports).",
        discussion: """
            Prints the reader's selectors, then serves until Ctrl-C or SIGTERM; with -- COMMAND it runs \
            COMMAND instead and exits with its status. COMMAND finds the reader in CARDCTL_UFR_TCP and \
            CARDCTL_UFR_UDP (selectors) and CARDCTL_UFR_DISCOVERY_PORT. The simulation follows \
            Digital Logic's COM protocol documents (see CardFlowSimulatorUFR). \
            With --usb the reader is a USB uFR Nano behind an emulated FTDI chip (0403:6001) instead: COMMAND \
            runs under umockdev (LD_PRELOAD and UMOCKDEV_DIR set) and finds it in CARDCTL_UFR_USB \
            (ufr:usb:SERIAL); --usb needs COMMAND.
            Example: cardctl simulate-ufr --card desfire -- sh -c 'cardctl --reader "$CARDCTL_UFR_UDP" desfire version'
            Example: cardctl simulate-ufr --usb -- sh -c 'cardctl --reader "$CARDCTL_UFR_USB" desfire version'
            """
    )

    @OptionGroup(title: "Global Options") var global: GlobalOptions

    @Option(
        name: .long,
        help: ArgumentHelp(
            "The card on the reader, as for sim: selectors (desfire, ntag424, iso7816, type2, none, …; ,seed=N).",
            valueName: "KIND[,options]"))
    var card: String = "desfire"

    @Option(name: .customLong("tcp-port"), help: "The TCP port (0: one the system picks).")
    var tcpPort = 0

    @Option(name: .customLong("udp-port"), help: "The UDP port (0: one the system picks).")
    var udpPort = 0

    @Option(
        name: .customLong("discovery-port"),
        help: "The discovery port (0: one the system picks; real readers use 8880).")
    var discoveryPort = 0

    @Flag(name: .long, help: "A USB uFR Nano (emulated FTDI chip, umockdev) instead of a Nano Online.")
    var usb = false

    @Option(
        name: .customLong("usb-serial"),
        help: ArgumentHelp("The USB reader's serial (its FTDI serial string).", valueName: "SERIAL"))
    var usbSerial = "UN123456"

    @Argument(
        parsing: .postTerminator,
        help: ArgumentHelp("A command to run with the reader, after --.", valueName: "COMMAND"))
    var command: [String] = []

    func validate() throws {
        for (name, port) in [("--tcp-port", tcpPort), ("--udp-port", udpPort), ("--discovery-port", discoveryPort)] {
            guard (0...65_535).contains(port) else { throw ValidationError("\(name) must be 0 to 65535") }
        }
        if usb && command.isEmpty {
            throw ValidationError("--usb needs the command to run, after --")
        }
    }

    func run() async throws {
        if usb { try SimulateCommand.ensurePreloaded() }
        let specification = try SimulatorSpecification(parsing: card.hasPrefix("sim") ? card : "sim:" + card)
        let virtualCard = try SimulatorSetup.makeCard(
            specification.cardKind, seed: specification.seed, capacity: specification.capacity,
            specification: specification)
        if usb {
            try await runUSB(SimulatedUFRReader(card: virtualCard, serialNumber: usbSerial))
            return
        }
        let online = try await SimulatedUFROnline.start(
            reader: SimulatedUFRReader(card: virtualCard), tcpPort: tcpPort, udpPort: udpPort,
            logger: CommandLogging.logger(trace: global.trace))
        let discovery = try await SimulatedUFRDiscoveryResponder.start(
            online: online, port: discoveryPort, serial: online.reader.serialNumber)
        let tcp = "ufr:tcp:127.0.0.1:\(online.tcpPort)"
        let udp = "ufr:udp:127.0.0.1:\(online.udpPort)"
        if command.isEmpty {
            Output.standardOutput(
                "simulated uFR Nano Online: \(tcp) \(udp) (discovery on udp 127.0.0.1:\(discovery.port)); "
                    + "Ctrl-C or SIGTERM stops")
            // Serves until the signal handler cancels the command.
            while !Task.isCancelled { try? await Task.sleep(for: .seconds(3_600)) }
            await discovery.stop()
            await online.stop()
            try Task.checkCancellation()
            return
        }
        var environment = ProcessInfo.processInfo.environment
        environment["CARDCTL_UFR_TCP"] = tcp
        environment["CARDCTL_UFR_UDP"] = udp
        environment["CARDCTL_UFR_DISCOVERY_PORT"] = "\(discovery.port)"
        let status = try await SimulateCommand.runChild(command, environment: environment)
        await discovery.stop()
        await online.stop()
        throw ExitCode(status)
    }

    /// Plugs the USB reader in, runs COMMAND under umockdev, unplugs it; exits with COMMAND's status.
    private func runUSB(_ reader: SimulatedUFRReader) async throws {
        let testbed = try USBTestbed.shared()
        let device = try testbed.attachUFR(reader)
        var environment = SimulateCommand.childEnvironment(testbed)
        environment["CARDCTL_UFR_USB"] = "ufr:usb:\(device.serial)"
        let status: Int32
        do {
            status = try await SimulateCommand.runChild(command, environment: environment)
        } catch {
            device.close()
            throw error
        }
        device.close()
        throw ExitCode(status)
    }
}
